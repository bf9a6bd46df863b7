#include "adi/matching.hpp"

#include <algorithm>

namespace strata::adi {

namespace {

// The bucket of `key` in `map`, remembered in (last, last_key) so that a
// conversation with one peer (or one wildcard context) skips the hash;
// `create` makes a missing one, else it is nullptr. Buckets are never erased,
// so the remembered pointer stays valid.
template <class Map, class Key>
PostedQueue::Bucket* cached_bucket(Map& map, Key key, PostedQueue::Bucket*& last, Key& last_key, bool create) {
    if (last != nullptr && last_key == key) return last;
    PostedQueue::Bucket* b = nullptr;
    if (create) {
        b = &map[key];
    } else if (auto it = map.find(key); it != map.end()) {
        b = &it->second;
    } else {
        return nullptr;
    }
    last = b;
    last_key = key;
    return b;
}

}  // namespace

void PostedQueue::push_other(Request* r) {
    if (r->rank == kAnySource) {
        cached_bucket(any_source_, r->context, last_any_, last_any_context_, true)->push_back(r);
        ++any_count_;
    } else {
        cached_bucket(by_source_, key(r->context, r->rank), last_, last_key_, true)->push_back(r);
    }
    ++count_;
}

PostedQueue::Bucket* PostedQueue::specific(int context, int source) {
    return cached_bucket(by_source_, key(context, source), last_, last_key_, false);
}

PostedQueue::Bucket* PostedQueue::wildcard(int context) {
    return cached_bucket(any_source_, context, last_any_, last_any_context_, false);
}

namespace {

// Receives and messages usually leave from the front.
template <class Bucket>
void erase_at(Bucket& b, typename Bucket::iterator it) {
    if (it == b.begin()) {
        b.pop_front();
    } else {
        b.erase(it);
    }
}

}  // namespace

Request* PostedQueue::take_any(int context, int source, int tag) {
    // The common case: no wildcard receive queued, and the first receive
    // posted for this sender takes the message.
    if (any_count_ == 0) {
        Bucket* b = count_ > 0 ? specific(context, source) : nullptr;
        if (b == nullptr || b->empty()) return nullptr;
        if (Request* r = b->front(); tag_matches(r->tag, tag)) {
            b->pop_front();
            --count_;
            return r;
        }
    } else if (count_ == any_count_) {
        // Only MPI_ANY_SOURCE receives queued: the first one of the context.
        Bucket* b = wildcard(context);
        if (b == nullptr || b->empty()) return nullptr;
        if (Request* r = b->front(); tag_matches(r->tag, tag)) {
            b->pop_front();
            --count_;
            --any_count_;
            return r;
        }
    }
    Bucket* specific = nullptr;
    Bucket::iterator specific_it;
    if (Bucket* b = count_ > any_count_ ? this->specific(context, source) : nullptr; b != nullptr) {
        specific_it = std::find_if(b->begin(), b->end(), [tag](const Request* r) { return tag_matches(r->tag, tag); });
        if (specific_it != b->end()) specific = b;
    }
    Bucket* wild = nullptr;
    Bucket::iterator wild_it;
    if (Bucket* b = any_count_ > 0 ? wildcard(context) : nullptr; b != nullptr) {
        wild_it = std::find_if(b->begin(), b->end(), [tag](const Request* r) { return tag_matches(r->tag, tag); });
        if (wild_it != b->end()) wild = b;
    }
    Request* r = nullptr;
    if (specific != nullptr && (wild == nullptr || (*specific_it)->seq < (*wild_it)->seq)) {
        r = *specific_it;
        erase_at(*specific, specific_it);
    } else if (wild != nullptr) {
        r = *wild_it;
        erase_at(*wild, wild_it);
        --any_count_;
    }
    if (r != nullptr) --count_;
    return r;
}

bool PostedQueue::remove(Request* r) {
    Bucket* b = nullptr;
    if (r->rank == kAnySource) {
        b = wildcard(r->context);
    } else {
        auto it = by_source_.find(key(r->context, r->rank));
        if (it != by_source_.end()) b = &it->second;
    }
    if (b == nullptr) return false;
    auto it = std::find(b->begin(), b->end(), r);
    if (it == b->end()) return false;
    b->erase(it);
    --count_;
    if (r->rank == kAnySource) --any_count_;
    return true;
}

UnexpectedQueue::~UnexpectedQueue() {
    for (auto& [key, bucket] : by_source_) {
        for (Unexpected* u : bucket) delete u;
    }
}

void UnexpectedQueue::push(Unexpected* u) {
    u->seq = next_seq_++;
    auto [it, inserted] = by_source_.try_emplace(key(u->header.context, u->header.source));
    if (inserted) sources_[u->header.context].push_back(u->header.source);
    it->second.push_back(u);
    ++count_;
}

Unexpected* UnexpectedQueue::find(int context, int source, int tag) const {
    if (count_ == 0) return nullptr;
    auto first_in = [&](int src) -> Unexpected* {
        auto b = by_source_.find(key(context, src));
        if (b == by_source_.end()) return nullptr;
        for (Unexpected* u : b->second) {
            if (tag_matches(tag, u->header.tag)) return u;
        }
        return nullptr;
    };
    if (source != kAnySource) return first_in(source);
    auto s = sources_.find(context);
    if (s == sources_.end()) return nullptr;
    Unexpected* best = nullptr;
    for (int src : s->second) {
        Unexpected* u = first_in(src);
        if (u != nullptr && (best == nullptr || u->seq < best->seq)) best = u;
    }
    return best;
}

void UnexpectedQueue::remove(Unexpected* u) {
    auto b = by_source_.find(key(u->header.context, u->header.source));
    if (b == by_source_.end()) return;
    auto it = std::find(b->second.begin(), b->second.end(), u);
    if (it == b->second.end()) return;
    erase_at(b->second, it);
    --count_;
}

Unexpected* UnexpectedQueue::find_sent(int peer, std::uint64_t sender_req) const {
    for (const auto& [k, bucket] : by_source_) {
        for (Unexpected* u : bucket) {
            if (u->peer == peer && u->header.sender_req == sender_req) return u;
        }
    }
    return nullptr;
}

}  // namespace strata::adi
