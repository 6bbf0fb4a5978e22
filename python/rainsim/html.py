def report(*a, **k): raise NotImplementedError
