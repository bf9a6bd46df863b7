// devices/ofi: the fast "vendor" method inside one machine or cluster, on a
// libfabric reliable-datagram (FI_EP_RDM) endpoint with tagged messages.
//
// Opt-in. The provider comes from STRATA_OFI_PROVIDER ("shm", "tcp;ofi_rxm",
// "verbs;ofi_rxm", ...); empty, the default, means the method publishes nothing
// and reaches nobody. Which fabric a cluster has, and whether its provider
// really beats TCP there, is a property of the site, so the job description
// sets it per cluster rather than the library guessing from what `fi_info`
// happens to list (every libfabric offers tcp, which would only duplicate the
// tcp method under another name). Peers are reached when they published the
// same provider and the same "vendor" label (and, for shm, the same "host").
//
// Wire format. Every packet is one untagged message: an 8-byte prefix, then
// the 40-byte adi::Header followed by its payload when all fit a bounce buffer
// (eager limit + 48). Receivers keep a pool of bounce buffers pre-posted for
// packets; the prefix carries the sender's rank (RDM completions do not name
// the source without FI_SOURCE, which costs every provider a lookup) and a
// per-pair sequence number. Packets are untagged because a bounce must take
// any packet, which a tagged receive does only with an ignore mask, and shm in
// libfabric 1.17 never matches a tagged message that arrived before any
// receive was posted (an unexpected one) to a receive posted later with a
// non-zero ignore mask, only to one naming its exact tag: such a packet stayed
// in the provider for good, and its pair stalled behind it. An untagged
// unexpected message goes to the next receive posted. Larger payloads (in
// practice rendezvous data, since the eager limit keeps eager messages small)
// travel as a header-only packet, then a tagged message whose exact tag is the
// payload bit, the same sequence number and the sender's rank: the receiver
// learns the landing from on_header() and posts its receive straight into it,
// so rendezvous data is never copied when it fits; otherwise it lands in a
// temporary buffer and is copied through the landings with adi::land_copy.
// The sender posts the payload only when the receiver, its receive posted,
// answers with a small untagged "go" message, so a large message never
// arrives unexpected: providers either buffer those or, like shm in libfabric
// 1.17 (its CMA path, libfabric issue #9853), stall the pair's later messages
// behind them, which here deadlocks. One small message per rendezvous payload
// (16 KiB and more) is the price.
//
// Ordering. The engine needs one pair's packets in send order. FI_ORDER_SAS
// orders matching, but not completions (a provider may complete a segmented
// message after a later small one), and a packet must not overtake a payload
// still arriving. So the receiver hands packets to the engine strictly by
// sequence number: one that is early, or that arrives while the peer's large
// payload is still in flight, waits, copied, in that peer's backlog.
//
// Sends. Small packets go by fi_inject when the provider's inject size allows
// (done at once); everything else is posted from the caller's buffers (the
// header copied into the send's context) and completes through on_sent().
// -FI_EAGAIN queues the send in one FIFO that poll() retries in order.
//
// Flow control is the provider's: a sender keeps posting until the provider
// says -FI_EAGAIN, and packets beyond the receiver's posted bounces wait in the
// provider as unexpected messages until bounces are posted again.
//
// Sleeping. When the completion queue can give a file descriptor, wait_fd()
// returns it and sleep_prepare() asks fi_trywait() whether it is safe to block
// on it; otherwise the engine yields.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adi/method.hpp"

struct fi_info;
struct fid_fabric;
struct fid_domain;
struct fid_av;
struct fid_cq;
struct fi_cq_tagged_entry;
struct fid_ep;

namespace strata::dev::ofi {

class OfiMethod final : public adi::Method {
public:
    // `provider`: the libfabric provider to open (STRATA_OFI_PROVIDER for the
    // method in the table); empty keeps the method silent.
    OfiMethod(adi::MethodContext ctx, std::string provider);
    ~OfiMethod() override;
    OfiMethod(const OfiMethod&) = delete;
    OfiMethod& operator=(const OfiMethod&) = delete;

    const adi::Capabilities& caps() const override { return caps_; }
    base::Status publish(wireup::BusinessCard& card) override;
    base::Status connect_world(const adi::World& world) override;
    // Whether the processes of two cards reach each other through this method:
    // both opened the same provider, in one vendor domain, on one host when
    // the provider is shm, with one data representation (records cross in
    // host byte order).
    static bool links(const wireup::BusinessCard& a, const wireup::BusinessCard& b);
    bool reaches(int peer) const override;
    adi::SendStatus send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) override;
    int poll(adi::Upcalls& up) override;
    int wait_fd() const override { return wait_fd_; }
    bool busy() const override;
    bool sleep_prepare() override { return !busy(); }
    bool has_queued_sends() const override { return !retry_.empty() || tx_live_ > 0; }
    void shutdown() override;

    // The provider actually opened ("shm", "tcp;ofi_rxm"), empty before publish.
    const std::string& provider() const { return provider_name_; }

private:
    enum class CtxKind : std::uint8_t { bounce, payload, tx_packet, tx_payload };
    struct Ctx;
    struct Bounce;
    struct TxOp;
    struct Peer;
    enum class Post { done, again, failed };

    base::Status open();
    void bounce_post(Bounce& b);
    Post tx_post(TxOp& op);
    void tx_done(TxOp* op, adi::Upcalls& up);
    void packet_arrived(int peer, std::uint32_t seq, bool go, const std::byte* data, std::size_t len, adi::Upcalls& up);
    void go_send(int peer, std::uint32_t seq);
    static std::uint64_t go_key(int peer, std::uint32_t seq);
    void packet_handle(int peer, std::uint32_t seq, const std::byte* data, std::size_t len, adi::Upcalls& up);
    void payload_post(int peer, adi::Upcalls* up);
    void payload_arrived(int peer, std::size_t len, adi::Upcalls& up);
    void backlog_drain(int peer, adi::Upcalls& up);
    void completion_error(adi::Upcalls& up);
    // poll()'s steps, inline: one completion, and what the provider refused
    // earlier posted again (returns the sends that left the queue).
    void completion(const fi_cq_tagged_entry& e, adi::Upcalls& up);
    int retries_post(adi::Upcalls& up);
    void peer_fail(int peer, const std::string& why, adi::Upcalls* up);
    std::string where(int peer) const;

    adi::MethodContext ctx_;
    std::string provider_;       // as asked
    std::string provider_name_;  // as opened
    adi::Capabilities caps_;
    fi_info* info_ = nullptr;
    fid_fabric* fabric_ = nullptr;
    fid_domain* domain_ = nullptr;
    fid_av* av_ = nullptr;
    fid_cq* cq_ = nullptr;
    fid_ep* ep_ = nullptr;
    int wait_fd_ = -1;
    std::size_t inject_size_ = 0;
    std::size_t iov_limit_ = 1;
    std::vector<Peer> peers_;
    std::vector<std::unique_ptr<Bounce>> bounces_;
    std::vector<Bounce*> bounce_waiting_;  // to post again: the provider said -FI_EAGAIN
    std::deque<TxOp*> retry_;  // sends the provider refused for now, oldest first
    std::deque<std::pair<int, std::uint32_t>> go_retry_;  // gos (peer, seq) refused for now
    std::map<std::uint64_t, TxOp*> awaiting_go_;          // payloads waiting for their go
    std::size_t tx_live_ = 0;  // sends posted or queued, not yet completed
    std::size_t payloads_waiting_post_ = 0;
    adi::PeerFailures failures_;  // reported at the next poll
};

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx);

}  // namespace strata::dev::ofi
