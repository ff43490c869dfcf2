//! Key hits (SPEC §5 as step 3 uses it): which keys a message or an entry
//! body contains, scanned once per text and cached by content hash
//! ([`HitCache`]), and read back through the index's slots so that keys of
//! replaced or removed entries stay masked.

use std::collections::HashMap;
use std::sync::Arc;

use super::index::{EntryIx, Index, KeyIx, Layer, Slot};
use crate::matcher::{Hit, Matcher};
use crate::tokenizer::content_hash;

/// Per-text hit lists, keyed by content hash, so a message (or an entry
/// body) is scanned once for as long as the index lives.
///
/// Hits of the base matcher stay valid across incremental edits (the slots
/// of edited entries mask them); hits of an overlay are kept only until that
/// overlay is rebuilt, which its generation tells.
#[derive(Debug, Default)]
pub struct HitCache {
    map: Hits,
    /// Per overlay: the generation the hits are of, and the hits.
    layers: [(u64, Hits); 2],
}

/// Hit lists by content hash, and how many hits they hold in all.
#[derive(Debug, Default)]
struct Hits {
    lists: HashMap<u64, Arc<[Hit]>>,
    held: usize,
}

impl Hits {
    fn clear(&mut self) {
        self.lists.clear();
        self.held = 0;
    }
}

impl HitCache {
    /// Cached text count above which the cache starts over.
    const LIMIT: usize = 200_000;
    /// Cached hits (12 bytes each) above which the cache starts over: a
    /// book whose keys all match every message (100,000 entries keyed `e`)
    /// holds one hit per key and text, which must not grow with the chat.
    const HIT_LIMIT: usize = 4 << 20;

    /// The hits of overlay `i`.
    fn get_layer(&mut self, i: usize, layer: &Layer, text: &str) -> Arc<[Hit]> {
        let (generation, map) = &mut self.layers[i];
        if *generation != layer.generation {
            map.clear();
            *generation = layer.generation;
        }
        Self::lookup(map, &layer.matcher, text)
    }

    fn lookup(map: &mut Hits, matcher: &Matcher, text: &str) -> Arc<[Hit]> {
        let h = content_hash(text);
        if let Some(hits) = map.lists.get(&h) {
            return hits.clone();
        }
        let hits: Arc<[Hit]> = matcher.scan(text).into();
        if map.lists.len() >= Self::LIMIT || map.held + hits.len() > Self::HIT_LIMIT {
            map.clear();
        }
        map.held += hits.len();
        map.lists.insert(h, hits.clone());
        hits
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.layers.iter_mut().for_each(|(_, m)| m.clear());
    }
}

/// A key of a live entry found in a text.
#[derive(Debug, Clone, Copy)]
pub(super) struct LiveHit {
    pub(super) key: KeyIx,
    pub(super) entry: EntryIx,
    pub(super) secondary: bool,
    /// The byte range of the key's first match in the text.
    pub(super) start: u32,
    pub(super) end: u32,
    /// The scan gave up on the key in this text ([`Hit::gave_up`]): it
    /// did not match, and `start`/`end` mean nothing.
    pub(super) gave_up: bool,
}

impl Index {
    /// Calls `f` with every live key hit in `text`, from the base matcher
    /// and from the overlays, skipping keys whose slot maps to no entry.
    pub(super) fn for_each_hit(
        &self,
        cache: &mut HitCache,
        text: &str,
        mut f: impl FnMut(LiveHit),
    ) {
        let mut live = |matcher: &Matcher, offset: u32, h: &Hit| {
            let owner = matcher.owner(h.key);
            if let Some(entry) = self.live(Slot::of(owner)) {
                f(LiveHit {
                    key: KeyIx::new(h.key, offset),
                    entry,
                    secondary: owner.secondary,
                    start: h.start,
                    end: h.end,
                    gave_up: h.gave_up(),
                });
            }
        };
        for h in HitCache::lookup(&mut cache.map, &self.matcher, text).iter() {
            live(&self.matcher, 0, h);
        }
        let mut offset = self.matcher.key_count() as u32;
        for (i, layer) in self.layers.iter().enumerate() {
            if layer.matcher.key_count() > 0 {
                for h in cache.get_layer(i, layer, text).iter() {
                    live(&layer.matcher, offset, h);
                }
            }
            offset += layer.matcher.key_count() as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::{KeyFlags, KeyOwner, MatcherBuilder};

    #[test]
    fn the_cache_starts_over_past_its_hit_limit() {
        let mut b = MatcherBuilder::default();
        let owner = KeyOwner {
            entry: 0,
            secondary: false,
            position: 0,
        };
        b.add("e", owner, KeyFlags::default());
        let (matcher, _) = b.build();
        let mut map = Hits {
            held: HitCache::HIT_LIMIT - 2,
            ..Hits::default()
        };
        HitCache::lookup(&mut map, &matcher, "one e");
        HitCache::lookup(&mut map, &matcher, "two e");
        assert_eq!(
            (map.lists.len(), map.held),
            (2, HitCache::HIT_LIMIT),
            "just at the limit, nothing is dropped"
        );
        HitCache::lookup(&mut map, &matcher, "three e");
        assert_eq!(
            (map.lists.len(), map.held),
            (1, 1),
            "one hit over, the cache starts over"
        );
    }

    /// The cache holds at most `LIMIT` texts: the last one that fits is
    /// kept with the others, the next one starts the cache over.
    #[test]
    fn the_cache_starts_over_past_its_text_limit() {
        let (matcher, _) = MatcherBuilder::default().build();
        let mut map = Hits::default();
        for i in 0..HitCache::LIMIT {
            HitCache::lookup(&mut map, &matcher, &i.to_string());
        }
        assert_eq!(map.lists.len(), HitCache::LIMIT, "just at the limit");
        HitCache::lookup(&mut map, &matcher, "one more");
        assert_eq!(map.lists.len(), 1, "one text over, the cache starts over");
    }
}
