//! A slab: a vector whose freed slots are reused, addressed by `u32` ids
//! (requests and stripe jobs in flight).

/// Slots of `T` with a free list.
#[derive(Debug, Clone)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T: Copy> Slab<T> {
    /// Stores `item` in a free slot and returns its id.
    #[inline]
    pub fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.items[id as usize] = item;
                id
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Frees slot `id` for reuse and returns its value (which stays until overwritten).
    #[inline]
    pub fn remove(&mut self, id: u32) -> T {
        self.free.push(id);
        self.items[id as usize]
    }
}

impl<T> std::ops::Index<u32> for Slab<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}

impl<T> std::ops::IndexMut<u32> for Slab<T> {
    #[inline]
    fn index_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
}
