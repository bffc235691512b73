// A map from a sequence of key values (small integers: the values of some strategy keys) to a
// value, for the search's caches (cost_cache.hpp, the counts and floors of searcher.hpp). Every
// entry's key values lie in one flat array and its value in a block of values, found through an
// open-addressed index of (hash, entry) slots (linear probing, at most half full): a lookup
// hashes the values and compares them in place, an insertion allocates nothing but, now and
// then, a larger array or a new block, and a value never moves once inserted (references and
// pointers to it stay valid as the map grows, as std::unordered_map's nodes do). Entries are
// never erased or iterated. The speed of the cached searches (docs/search.md section 3), not
// their results, depends on it: key_values_map_test.cpp compares it with std::map.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace paraplan::detail {

// The hash of a sequence of key values (FNV-1a over the values, mixed).
inline uint64_t key_values_hash(std::span<const int64_t> values) {
  uint64_t h = 14695981039346656037ull;
  for (const int64_t v : values) {
    h ^= static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 1099511628211ull;
  }
  return h;
}

template <typename Value>
class KeyValuesMap {
 public:
  // The value of `key`, or nullptr.
  Value* find(std::span<const int64_t> key) {
    if (slots_.empty()) return nullptr;
    const uint64_t hash = key_values_hash(key);
    for (size_t at = hash & mask(); slots_[at].entry != kEmpty; at = (at + 1) & mask()) {
      const Slot& slot = slots_[at];
      if (slot.hash == hash && same_key(slot.entry, key)) return &value_ref(slot.entry);
    }
    return nullptr;
  }

  // Inserts `key` (not in the map) with `value`; returns the value in the map.
  Value& emplace(std::span<const int64_t> key, Value value) {
    if (2 * (entries_.size() + 1) > slots_.size()) grow();
    const auto entry = static_cast<uint32_t>(entries_.size());
    entries_.push_back({keys_.size(), key.size()});
    keys_.insert(keys_.end(), key.begin(), key.end());
    if (entry % kBlock == 0) blocks_.push_back(std::make_unique<Value[]>(kBlock));
    value_ref(entry) = std::move(value);
    place(key_values_hash(key), entry);
    return value_ref(entry);
  }

  size_t size() const { return entries_.size(); }

 private:
  // Values per block: about 64 KiB of them, at least 8.
  static constexpr size_t kBlock = std::max<size_t>(8, 65536 / sizeof(Value));
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t hash = 0;
    uint32_t entry = kEmpty;
  };
  struct Entry {
    size_t offset, length;  // its key values in keys_
  };

  size_t mask() const { return slots_.size() - 1; }
  Value& value_ref(uint32_t entry) { return blocks_[entry / kBlock][entry % kBlock]; }
  bool same_key(uint32_t entry, std::span<const int64_t> key) const {
    const Entry& e = entries_[entry];
    return e.length == key.size() &&
           std::equal(key.begin(), key.end(),
                      keys_.begin() + static_cast<std::ptrdiff_t>(e.offset));
  }
  void place(uint64_t hash, uint32_t entry) {
    size_t at = hash & mask();
    while (slots_[at].entry != kEmpty) at = (at + 1) & mask();
    slots_[at] = {hash, entry};
  }
  // Twice the slots (64 at first), every entry placed again by its kept hash.
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    for (const Slot& slot : old) {
      if (slot.entry != kEmpty) place(slot.hash, slot.entry);
    }
  }

  std::vector<Slot> slots_;  // a power of two of them, at most half used
  std::vector<Entry> entries_;
  std::vector<int64_t> keys_;
  std::vector<std::unique_ptr<Value[]>> blocks_;
};

}  // namespace paraplan::detail
