// KeyValuesMap (the search's caches, key_values_map.hpp) against std::map over random keys of
// random lengths, with collisions forced by a tiny value range: every key found with its own
// value, absent keys not found, and values at the addresses they were inserted at however the
// map grew.
#include "model/key_values_map.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

using paraplan::detail::KeyValuesMap;

namespace {

struct Costly {  // a value larger than a block's share, as ModelCosts is
  int64_t id = -1;
  double padding[600] = {};
};

template <typename Value, typename Make>
void compare_with_std_map(Make make, int inserts, int64_t value_range) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int64_t> value(-value_range, value_range);
  std::uniform_int_distribution<size_t> length(0, 6);
  const auto random_key = [&] {
    std::vector<int64_t> key(length(random));
    for (int64_t& v : key) v = value(random);
    return key;
  };
  KeyValuesMap<Value> map;
  std::map<std::vector<int64_t>, std::pair<int64_t, const Value*>> reference;
  for (int i = 0; i < inserts; ++i) {
    const std::vector<int64_t> key = random_key();
    CAPTURE(i);
    Value* found = map.find(key);
    const auto expected = reference.find(key);
    REQUIRE((found != nullptr) == (expected != reference.end()));
    if (found != nullptr) {
      CHECK(found == expected->second.second);  // never moved
      continue;
    }
    const Value& inserted = map.emplace(key, make(i));
    reference.emplace(key, std::make_pair(int64_t{i}, &inserted));
  }
  CHECK(map.size() == reference.size());
  CHECK(map.size() > 1000);  // the map grew many times
  for (const auto& [key, entry] : reference) {
    const Value* found = map.find(key);
    REQUIRE(found != nullptr);
    CHECK(found == entry.second);
    CHECK(make(static_cast<int>(entry.first)).id == found->id);
  }
  // Keys never inserted: longer than any inserted, or out of the values' range.
  CHECK(map.find(std::vector<int64_t>(7, 0)) == nullptr);
  CHECK(map.find(std::vector<int64_t>{value_range + 1}) == nullptr);
}

struct Small {
  int64_t id = -1;
};

}  // namespace

TEST_CASE("KeyValuesMap finds what std::map finds, and its values never move") {
  SUBCASE("small values, many collisions of short keys") {
    compare_with_std_map<Small>([](int i) { return Small{i}; }, 20000, 3);
  }
  SUBCASE("large values (a block holds few)") {
    compare_with_std_map<Costly>(
        [](int i) {
          Costly c;
          c.id = i;
          return c;
        },
        3000, 40);
  }
}

TEST_CASE("KeyValuesMap: an empty map finds nothing; the empty key is a key") {
  KeyValuesMap<int> map;
  CHECK(map.find(std::vector<int64_t>{}) == nullptr);
  CHECK(map.find(std::vector<int64_t>{1, 2}) == nullptr);
  map.emplace(std::vector<int64_t>{}, 5);
  REQUIRE(map.find(std::vector<int64_t>{}) != nullptr);
  CHECK(*map.find(std::vector<int64_t>{}) == 5);
  CHECK(map.find(std::vector<int64_t>{0}) == nullptr);  // not the empty key
}
