// HandleTable: handles name objects of one kind; recycled request objects are
// reused without leaking their old contents or handles.
#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <string>

#include "mpi/handle_table.hpp"

using strata::mpi::HandleTable;

namespace {

struct Thing {
    std::string name;
    std::shared_ptr<int> held;
};

// add_empty, filled in place.
int add_thing(HandleTable<Thing>& t, const std::string& name, std::shared_ptr<int> held) {
    Thing* obj = nullptr;
    const int h = t.add_empty(obj);
    REQUIRE(obj != nullptr);
    CHECK(obj->name.empty());  // emptied, whatever it held before
    CHECK(obj->held == nullptr);
    obj->name = name;
    obj->held = std::move(held);
    return h;
}

}  // namespace

TEST_CASE("handle table: a recycled handle is dead, its object reused empty") {
    HandleTable<Thing> t(4);
    auto held = std::make_shared<int>(7);
    const int h1 = add_thing(t, "first", held);
    REQUIRE(t.get(h1) != nullptr);
    CHECK(t.get(h1)->name == "first");
    CHECK(held.use_count() == 2);
    const Thing* where = t.get(h1);
    t.recycle(h1);
    CHECK(t.get(h1) == nullptr);   // the handle no longer names anything
    CHECK(held.use_count() == 1);  // what it held was released at once
    // The next value goes into the kept object, with nothing of the old one.
    const int h2 = add_thing(t, "second", nullptr);
    REQUIRE(t.get(h2) != nullptr);
    CHECK(t.get(h2) == where);
    CHECK(t.get(h2)->name == "second");
    CHECK(t.get(h2)->held == nullptr);
    // A handle of another kind finds nothing.
    CHECK(t.get((5 << 26) | (h2 & ((1 << 26) - 1))) == nullptr);
    t.recycle(h2);
    t.recycle(h2);  // twice: the second does nothing
    CHECK(t.get(h2) == nullptr);
}

TEST_CASE("handle table: many live handles stay distinct; recycled objects are used again, emptied") {
    HandleTable<Thing> t(4);
    std::set<int> live;
    for (int i = 0; i < 200; ++i) live.insert(add_thing(t, std::to_string(i), nullptr));
    CHECK(live.size() == 200);
    int i = 0;
    for (int h : live) CHECK(t.get(h)->name == std::to_string(i++));
    for (int h : live) t.recycle(h);
    for (int h : live) CHECK(t.get(h) == nullptr);
    std::set<int> again;
    for (int j = 0; j < 200; ++j) again.insert(add_thing(t, 'x' + std::to_string(j), nullptr));
    CHECK(again.size() == 200);
    for (int h : again) CHECK(t.get(h)->name.rfind('x', 0) == 0);
    // A removed handle's index serves add() and add_empty() alike.
    const int h = *again.begin();
    t.remove(h);
    CHECK(t.get(h) == nullptr);
    const int h2 = add_thing(t, "after remove", nullptr);
    CHECK(t.get(h2)->name == "after remove");
    const int h3 = t.add(std::make_unique<Thing>(Thing{"added", nullptr}));
    CHECK(t.get(h3)->name == "added");
    CHECK(h2 != h3);
}

TEST_CASE("handle table: predefined indexes stay out of the free list") {
    HandleTable<Thing> t(4);
    t.reserve_predefined(8);
    const int h = add_thing(t, "first", nullptr);
    CHECK((h & ((1 << 26) - 1)) == 8);
    CHECK(t.get(strata::mpi::handle_make(4, 3)) == nullptr);
    CHECK(t.put(3, std::make_unique<Thing>(Thing{"three", nullptr})) == strata::mpi::handle_make(4, 3));
    CHECK(t.get(strata::mpi::handle_make(4, 3))->name == "three");
}
