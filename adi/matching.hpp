// The matching engine: posted receives and unexpected messages.
//
// MPI's non-overtaking rule says two messages from one sender on one
// communicator match receives in the order they were sent, and receives are
// satisfied in the order they were posted. Both queues are kept per
// (context, source) so a specific-source search never walks other senders'
// traffic (floods of unexpected messages stay cheap), and every entry carries
// a sequence number so wildcard searches pick the earliest candidate.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "adi/envelope.hpp"
#include "adi/request.hpp"

namespace strata::adi {

// A message that arrived before a matching receive was posted.
struct Unexpected {
    Header header;
    int peer = -1;  // world rank of the sender
    std::vector<std::byte> data;
    bool complete = false;       // payload fully arrived (always true for rts)
    Request* waiter = nullptr;   // receive matched while the payload was still arriving
    std::uint64_t seq = 0;
};

inline bool tag_matches(int wanted, int actual) { return wanted == kAnyTag || wanted == actual; }

class PostedQueue {
public:
    // Receives are usually taken from the front: a deque reuses its blocks
    // where a list would allocate a node per posted receive.
    using Bucket = std::deque<Request*>;

    void push(Request* r) {
        r->seq = next_seq_++;
        if (r->rank != kAnySource && last_ != nullptr && last_key_ == key(r->context, r->rank)) [[likely]] {
            last_->push_back(r);
            ++count_;
            return;
        }
        push_other(r);
    }
    // The earliest posted receive that matches an arriving envelope; removed.
    // Inline for a conversation with one peer: no wildcard receive queued,
    // the sender's bucket the one last used, and its first receive taking
    // the message.
    Request* take(int context, int source, int tag) {
        if (any_count_ == 0 && last_ != nullptr && last_key_ == key(context, source)) [[likely]] {
            if (last_->empty()) return nullptr;
            if (Request* r = last_->front(); tag_matches(r->tag, tag)) {
                last_->pop_front();
                --count_;
                return r;
            }
        }
        return take_any(context, source, tag);
    }
    // Removes a specific receive (cancel). False if it is not queued.
    bool remove(Request* r);
    std::size_t size() const { return count_; }

private:
    static std::uint64_t key(int context, int source) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(context)) << 32) |
               static_cast<std::uint32_t>(source);
    }
    // push and take beyond their inline cases.
    void push_other(Request* r);
    Request* take_any(int context, int source, int tag);
    // The bucket of a specific (context, source), or nullptr.
    Bucket* specific(int context, int source);
    // The MPI_ANY_SOURCE bucket of a context, or nullptr.
    Bucket* wildcard(int context);

    std::unordered_map<std::uint64_t, Bucket> by_source_;  // buckets are never erased
    // The bucket last used: a conversation with one peer skips the hash.
    Bucket* last_ = nullptr;
    std::uint64_t last_key_ = 0;
    std::unordered_map<int, Bucket> any_source_;  // by context
    Bucket* last_any_ = nullptr;                  // the wildcard bucket last used
    int last_any_context_ = 0;
    std::uint64_t next_seq_ = 1;
    std::size_t count_ = 0;
    std::size_t any_count_ = 0;  // MPI_ANY_SOURCE receives queued (0: skip that search)
};

// Owns the messages it holds: remove() hands one back to the caller, and
// whatever is still queued when the queue goes is freed with it.
class UnexpectedQueue {
public:
    UnexpectedQueue() = default;
    ~UnexpectedQueue();
    UnexpectedQueue(const UnexpectedQueue&) = delete;
    UnexpectedQueue& operator=(const UnexpectedQueue&) = delete;

    void push(Unexpected* u);
    // The earliest unexpected message matching a receive's (source, tag), which
    // may be wildcards. Not removed.
    Unexpected* find(int context, int source, int tag) const;
    void remove(Unexpected* u);
    // The unmatched message a sender wants to cancel, if still here.
    Unexpected* find_sent(int peer, std::uint64_t sender_req) const;
    std::size_t size() const { return count_; }

private:
    using Bucket = std::deque<Unexpected*>;
    static std::uint64_t key(int context, int source) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(context)) << 32) |
               static_cast<std::uint32_t>(source);
    }
    std::unordered_map<std::uint64_t, Bucket> by_source_;
    std::unordered_map<int, std::vector<int>> sources_;  // context -> sources with a bucket
    std::uint64_t next_seq_ = 1;
    std::size_t count_ = 0;
};

}  // namespace strata::adi
