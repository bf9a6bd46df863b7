#include "devices/ofi/ofi_method.hpp"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <cstring>

#include "base/knob.hpp"
#include "devices/ofi/fabric_library.hpp"

namespace strata::dev::ofi {

namespace {

const base::KnobString provider_knob{
    "STRATA_OFI_PROVIDER", "",
    "libfabric provider of the ofi (vendor) method, e.g. 'shm' or 'tcp;ofi_rxm' (see fi_info -l); "
    "empty: the ofi method is off"};

// 16 KiB: the copy out of a bounce buffer costs about what the rts/cts round
// trip of rendezvous costs on shared memory at this size, a pool of bounces
// stays at about 1 MiB per process, and it is the eager size of ofi_rxm, so a
// packet is never segmented by the provider underneath.
constexpr std::size_t kEagerLimit = 16 * 1024;
// Every message a bounce receives starts with its own tag: packets and gos are
// untagged messages (see ofi_method.hpp), so the completion has no tag to name
// the sender.
constexpr std::size_t kPrefix = sizeof(std::uint64_t);
constexpr std::size_t kBounceSize = kPrefix + sizeof(adi::Header) + kEagerLimit;
// Receives kept posted for packets. Generous, because a packet that finds none
// waits inside the provider as an unexpected message, which providers handle
// with hidden buffering at best (and shm in libfabric 1.17 badly).
constexpr std::size_t kBounces = 512;
constexpr int kBatch = 16;       // completions read per fi_cq_read
constexpr int kMaxBatches = 8;   // bound on the work of one poll()
constexpr std::size_t kMaxIov = 8;  // pieces of one packet we ever hand over

// Tag layout (the libfabric tag of a payload, the in-band prefix of a packet
// or go): bit 63 payload, bit 62 "go" (the receiver of a payload is ready for
// it), neither: a packet; bits 32..61 the per-pair sequence number of the
// packet (for a payload or go: of the packet announcing the payload); bits
// 0..31 the sending process's world rank.
constexpr std::uint64_t kPayloadBit = 1ull << 63;
constexpr std::uint64_t kGoBit = 1ull << 62;
constexpr std::uint32_t kSeqMask = 0x3fffffffu;

std::uint64_t tag_make(std::uint64_t kind, std::uint32_t seq, int rank) {
    return kind | (static_cast<std::uint64_t>(seq & kSeqMask) << 32) | static_cast<std::uint32_t>(rank);
}

// Where a send stands.
constexpr int kStagePacket = 0;   // the packet is to be posted
constexpr int kStageAwaitGo = 1;  // the payload waits for the receiver's go
constexpr int kStagePayload = 2;  // the payload is to be posted
constexpr int kStageDone = 3;     // everything posted

// libfabric's text for an error code; the library is loaded (open() did it
// before any call can fail).
std::string err_text(ssize_t rc) {
    const base::Result<const FabricLibrary*> lib = fabric_library();
    const int code = static_cast<int>(rc < 0 ? -rc : rc);
    return lib ? (*lib)->strerror(code) : "error " + std::to_string(code);
}

std::string hex_encode(const std::vector<std::uint8_t>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

bool hex_decode(const std::string& text, std::vector<std::uint8_t>& out) {
    if (text.size() % 2 != 0) return false;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    out.clear();
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int hi = nibble(text[i]);
        const int lo = nibble(text[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
    }
    return true;
}

// Providers that progress through kernel sockets pay a system call per poll.
bool over_sockets(const std::string& provider) {
    return provider.find("tcp") != std::string::npos || provider.find("udp") != std::string::npos ||
           provider.find("sockets") != std::string::npos;
}

}  // namespace

// Every operation's context; fi_context2 first, as FI_CONTEXT2 mode asks.
struct OfiMethod::Ctx {
    fi_context2 fi{};
    CtxKind kind = CtxKind::bounce;
    int peer = -1;
    void* owner = nullptr;
};

struct OfiMethod::Bounce {
    Ctx ctx;
    std::vector<std::byte> buf = std::vector<std::byte>(kBounceSize);
};

struct OfiMethod::TxOp {
    Ctx packet_ctx;
    Ctx payload_ctx;
    int peer = -1;
    std::uint32_t seq = 0;
    std::uint64_t token = 0;
    struct Wire {
        std::uint64_t tag = 0;  // the message's own tag first (kPrefix)
        adi::Header header{};
    } wire;
    bool separate = false;          // the payload follows as its own message
    std::vector<iovec> data;        // the caller's buffers
    std::vector<std::byte> copy;    // when the buffers exceed the provider's iov_limit
    bool whole = false;             // `copy` holds header and payload: one buffer to send
    bool go = false;                // not a packet: a go for the peer's payload `seq`
    int stage = 0;                  // kStage*
    int in_flight = 0;              // posted, not completed
    bool failed = false;
};

struct OfiMethod::Peer {
    bool reach = false;
    bool failed = false;
    std::uint64_t addr = FI_ADDR_UNSPEC;
    std::string hostname;
    std::uint32_t tx_seq = 0;
    std::uint32_t rx_seq = 0;  // next packet to hand to the engine
    std::map<std::uint32_t, std::vector<std::byte>> backlog;
    // The large payload in flight, if any.
    bool in_payload = false;
    bool post_waiting = false;  // its receive got -FI_EAGAIN
    std::uint32_t pay_seq = 0;
    adi::Header cur{};
    adi::Landing land;
    bool direct = false;
    std::vector<std::byte> temp;
    Ctx rx_ctx;
};

OfiMethod::OfiMethod(adi::MethodContext ctx, std::string provider)
    : ctx_(std::move(ctx)), provider_(std::move(provider)) {
    caps_.name = "ofi";
    caps_.eager_limit = kEagerLimit;
    // shm (and hardware providers) find completions by reading memory; a
    // provider over kernel sockets (tcp, ofi_rxm on tcp) progresses with an
    // epoll_wait per poll, a system call like the tcp method's.
    caps_.poll_cost = over_sockets(provider_) ? 100 : 2;
    peers_.resize(static_cast<std::size_t>(std::max(ctx_.size, 1)));
}

OfiMethod::~OfiMethod() { shutdown(); }

base::Status OfiMethod::open() {
    const std::string what = "the ofi method (" + std::string(provider_knob.name()) + "=" + provider_ + ")";
    const std::string advice = "; check `fi_info -p '" + provider_ + "' -t FI_EP_RDM -c \"FI_MSG|FI_TAGGED\"`, or leave " +
                               provider_knob.name() + " empty to use the other methods";
    const base::Result<const FabricLibrary*> loaded = fabric_library();
    if (!loaded) return base::Error{"cannot open " + what + ": " + loaded.error()};
    const FabricLibrary& lib = **loaded;
    fi_info* hints = lib.dupinfo(nullptr);  // fi_allocinfo()
    if (hints == nullptr) {
        return base::Error{what + ": fi_allocinfo failed"};
    }
    hints->caps = FI_MSG | FI_TAGGED;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->mr_mode = 0;  // only messages, never registered memory
    hints->fabric_attr->prov_name = strdup(provider_.c_str());
    int rc = lib.getinfo(FI_VERSION(1, 12), nullptr, nullptr, 0, hints, &info_);
    lib.freeinfo(hints);
    if (rc != 0 || info_ == nullptr) {
        info_ = nullptr;
        return base::Error{"cannot open " + what +
                           ": no RDM endpoint with untagged and tagged messages: " + err_text(rc) + advice};
    }
    provider_name_ = info_->fabric_attr->prov_name != nullptr ? info_->fabric_attr->prov_name : provider_;
    inject_size_ = info_->tx_attr->inject_size;
    iov_limit_ = std::clamp<std::size_t>(info_->tx_attr->iov_limit, 1, kMaxIov);
    auto step = [&](int code, const char* call) -> base::Status {
        if (code == 0) return {};
        return base::Error{"cannot open " + what + ": " + call + ": " + err_text(code) + advice};
    };
    if (base::Status s = step(lib.fabric(info_->fabric_attr, &fabric_, nullptr), "fi_fabric"); !s) return s;
    if (base::Status s = step(fi_domain(fabric_, info_, &domain_, nullptr), "fi_domain"); !s) return s;
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    av_attr.count = static_cast<std::size_t>(std::max(ctx_.size, 1));
    if (base::Status s = step(fi_av_open(domain_, &av_attr, &av_, nullptr), "fi_av_open"); !s) return s;
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_TAGGED;
    cq_attr.wait_obj = FI_WAIT_FD;
    if (fi_cq_open(domain_, &cq_attr, &cq_, nullptr) != 0) {
        // No descriptor to sleep on: the engine yields instead.
        cq_ = nullptr;
        cq_attr.wait_obj = FI_WAIT_NONE;
        if (base::Status s = step(fi_cq_open(domain_, &cq_attr, &cq_, nullptr), "fi_cq_open"); !s) return s;
    } else {
        int fd = -1;
        if (fi_control(&cq_->fid, FI_GETWAIT, &fd) == 0) wait_fd_ = fd;
    }
    if (base::Status s = step(fi_endpoint(domain_, info_, &ep_, nullptr), "fi_endpoint"); !s) return s;
    if (base::Status s = step(fi_ep_bind(ep_, &av_->fid, 0), "fi_ep_bind(av)"); !s) return s;
    if (base::Status s = step(fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)"); !s) return s;
    if (base::Status s = step(fi_enable(ep_), "fi_enable"); !s) return s;
    for (std::size_t i = 0; i < kBounces; ++i) {
        auto b = std::make_unique<Bounce>();
        b->ctx.kind = CtxKind::bounce;
        b->ctx.owner = b.get();
        bounce_post(*b);
        bounces_.push_back(std::move(b));
    }
    return {};
}

void OfiMethod::bounce_post(Bounce& b) {
    ssize_t rc = fi_recv(ep_, b.buf.data(), b.buf.size(), nullptr, FI_ADDR_UNSPEC, &b.ctx.fi);
    // A provider short of resources for a moment: poll() posts it again.
    if (rc != 0) bounce_waiting_.push_back(&b);
}

base::Status OfiMethod::publish(wireup::BusinessCard& card) {
    if (provider_.empty()) return {};  // opt-in: nothing published, nobody reached
    if (base::Status opened = open(); !opened) {
        shutdown();
        return opened;
    }
    std::vector<std::uint8_t> name(256);
    std::size_t len = name.size();
    int rc = fi_getname(&ep_->fid, name.data(), &len);
    if (rc == -FI_ETOOSMALL) {
        name.resize(len);
        rc = fi_getname(&ep_->fid, name.data(), &len);
    }
    if (rc != 0) {
        base::Error failed{"the ofi method (" + provider_name_ + "): fi_getname: " + err_text(rc)};
        shutdown();
        return failed;
    }
    name.resize(len);
    card.publish("ofi", provider_name_ + "|" + hex_encode(name));
    return {};
}

bool OfiMethod::links(const wireup::BusinessCard& a, const wireup::BusinessCard& b) {
    const std::string x = a.entry("ofi");
    const std::string y = b.entry("ofi");
    const auto bar = x.rfind('|');
    if (bar == std::string::npos || y.rfind('|') != bar || x.compare(0, bar, y, 0, bar) != 0) return false;
    return a.vendor == b.vendor && (x.compare(0, bar, "shm") != 0 || a.host == b.host) &&
           adi::same_representation(a, b);
}

base::Status OfiMethod::connect_world(const adi::World& world) {
    const auto& cards = world.cards;
    const int my_rank = world.rank;
    ctx_.rank = my_rank;
    if (ep_ == nullptr || my_rank < 0 || static_cast<std::size_t>(my_rank) >= cards.size()) return {};
    peers_.resize(cards.size());
    const wireup::BusinessCard& mine = cards[static_cast<std::size_t>(my_rank)];
    for (std::size_t i = 0; i < cards.size(); ++i) {
        Peer& p = peers_[i];
        p.hostname = cards[i].hostname;
        if (static_cast<int>(i) == my_rank) continue;  // the self method's
        if (!links(mine, cards[i])) continue;
        const std::string a = cards[i].entry("ofi");
        const auto bar = a.rfind('|');
        // The peer reaches us by the same rules: failing here must stop the job,
        // or the two would disagree on the method between them.
        std::vector<std::uint8_t> raw;
        if (!hex_decode(a.substr(bar + 1), raw) || raw.empty()) {
            return base::Error{"ofi: rank " + std::to_string(i) + " published a malformed address '" + a + "'"};
        }
        fi_addr_t addr = FI_ADDR_UNSPEC;
        if (fi_av_insert(av_, raw.data(), 1, &addr, 0, nullptr) != 1) {
            return base::Error{"ofi: cannot add rank " + std::to_string(i) +
                               "'s address to the address vector of provider " + provider_name_};
        }
        p.addr = addr;
        p.reach = true;
    }
    return {};
}

bool OfiMethod::reaches(int peer) const {
    return peer >= 0 && static_cast<std::size_t>(peer) < peers_.size() && peers_[static_cast<std::size_t>(peer)].reach;
}

std::uint64_t OfiMethod::go_key(int peer, std::uint32_t seq) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(peer)) << 32) | seq;
}

std::string OfiMethod::where(int peer) const {
    return "rank " + std::to_string(peer) + " (host " + peers_[static_cast<std::size_t>(peer)].hostname +
           ") over ofi provider " + provider_name_;
}

adi::SendStatus OfiMethod::send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (!p.reach || p.failed) return adi::SendStatus::failed;
    std::size_t total = 0;
    for (const iovec& v : data) total += v.iov_len;
    const std::uint32_t seq = p.tx_seq;
    p.tx_seq = (p.tx_seq + 1) & kSeqMask;
    const std::size_t packet = kPrefix + sizeof(adi::Header) + total;
    const std::uint64_t tag = tag_make(0, seq, ctx_.rank);

    // Small packets: one inject, done before we return.
    if (retry_.empty() && packet <= inject_size_ && packet <= kBounceSize) {
        std::byte buf[kBounceSize];
        std::memcpy(buf, &tag, kPrefix);
        std::memcpy(buf + kPrefix, &h, sizeof h);
        std::size_t at = kPrefix + sizeof h;
        for (const iovec& v : data) {
            std::memcpy(buf + at, v.iov_base, v.iov_len);
            at += v.iov_len;
        }
        ssize_t rc = fi_inject(ep_, buf, packet, p.addr);
        if (rc == 0) return adi::SendStatus::done;
        if (rc != -FI_EAGAIN) {
            peer_fail(peer, "sending to " + where(peer) + " failed: fi_inject: " + err_text(rc), nullptr);
            return adi::SendStatus::failed;
        }
    }

    auto* op = new TxOp;
    op->packet_ctx.kind = CtxKind::tx_packet;
    op->payload_ctx.kind = CtxKind::tx_payload;
    op->packet_ctx.owner = op->payload_ctx.owner = op;
    op->packet_ctx.peer = op->payload_ctx.peer = peer;
    op->peer = peer;
    op->seq = seq;
    op->token = token;
    op->wire.tag = tag;
    op->wire.header = h;
    op->separate = packet > kBounceSize;
    op->data.assign(data.begin(), data.end());
    // Too many pieces for one message: gather them (rare: the engine sends one).
    const std::size_t pieces = op->data.size() + (op->separate ? 0 : 1);
    if (pieces > iov_limit_) {
        const std::size_t head = op->separate ? 0 : sizeof op->wire;
        op->copy.resize(head + total);
        std::memcpy(op->copy.data(), &op->wire, head);
        std::size_t at = head;
        for (const iovec& v : data) {
            std::memcpy(op->copy.data() + at, v.iov_base, v.iov_len);
            at += v.iov_len;
        }
        op->whole = !op->separate;
        op->data.assign(1, iovec{op->copy.data(), op->copy.size()});
    }
    ++tx_live_;
    if (!retry_.empty()) {
        retry_.push_back(op);
        return adi::SendStatus::queued;
    }
    switch (tx_post(*op)) {
        case Post::again:
            retry_.push_back(op);
            return adi::SendStatus::queued;
        case Post::failed:
            if (op->in_flight == 0) {
                --tx_live_;
                delete op;
            }
            return adi::SendStatus::failed;
        case Post::done:
            break;
    }
    return adi::SendStatus::queued;
}

OfiMethod::Post OfiMethod::tx_post(TxOp& op) {
    if (op.failed || peers_[static_cast<std::size_t>(op.peer)].failed) {
        op.failed = true;
        op.stage = kStageDone;
        return Post::failed;
    }
    const fi_addr_t to = peers_[static_cast<std::size_t>(op.peer)].addr;
    auto post_failed = [&](ssize_t rc) {
        op.failed = true;
        op.stage = kStageDone;  // freed once what was posted completed
        peer_fail(op.peer, "sending to " + where(op.peer) + " failed: " + err_text(rc), nullptr);
        return Post::failed;
    };
    if (op.stage == kStagePacket) {
        ssize_t rc = 0;
        if (op.go) {
            rc = fi_send(ep_, &op.wire.tag, kPrefix, nullptr, to, &op.packet_ctx.fi);
        } else if (op.whole) {
            rc = fi_send(ep_, op.copy.data(), op.copy.size(), nullptr, to, &op.packet_ctx.fi);
        } else if (op.separate || op.data.empty()) {
            rc = fi_send(ep_, &op.wire, sizeof op.wire, nullptr, to, &op.packet_ctx.fi);
        } else {
            iovec iov[kMaxIov];
            std::size_t n = 0;
            iov[n++] = iovec{&op.wire, sizeof op.wire};
            for (const iovec& v : op.data) iov[n++] = v;
            rc = fi_sendv(ep_, iov, nullptr, n, to, &op.packet_ctx.fi);
        }
        if (rc == -FI_EAGAIN) return Post::again;
        if (rc != 0) return post_failed(rc);
        ++op.in_flight;
        op.stage = op.separate ? kStageAwaitGo : kStageDone;
        if (op.separate) awaiting_go_[go_key(op.peer, op.seq)] = &op;
    }
    if (op.stage == kStagePayload) {
        ssize_t rc = fi_tsendv(ep_, op.data.data(), nullptr, op.data.size(), to, tag_make(kPayloadBit, op.seq, ctx_.rank),
                               &op.payload_ctx.fi);
        if (rc == -FI_EAGAIN) return Post::again;
        if (rc != 0) return post_failed(rc);
        ++op.in_flight;
        op.stage = kStageDone;
    }
    return Post::done;
}

void OfiMethod::tx_done(TxOp* op, adi::Upcalls& up) {
    if (--op->in_flight > 0 || op->stage != kStageDone) return;
    --tx_live_;
    const std::uint64_t token = op->failed ? 0 : op->token;
    delete op;
    if (token != 0) up.on_sent(token);
}

void OfiMethod::packet_arrived(int peer, std::uint32_t seq, bool go, const std::byte* data, std::size_t len,
                               adi::Upcalls& up) {
    if (peer < 0 || static_cast<std::size_t>(peer) >= peers_.size() || !peers_[static_cast<std::size_t>(peer)].reach)
        return;  // not from a process of this job that we reach: dropped
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.failed) return;
    if (go) {
        auto it = awaiting_go_.find(go_key(peer, seq));
        if (it == awaiting_go_.end()) return;
        TxOp* op = it->second;
        awaiting_go_.erase(it);
        op->stage = kStagePayload;
        if (tx_post(*op) == Post::again) retry_.push_back(op);
        return;
    }
    if (!p.in_payload && seq == p.rx_seq) {
        packet_handle(peer, seq, data, len, up);
        backlog_drain(peer, up);
        return;
    }
    p.backlog.emplace(seq, std::vector<std::byte>(data, data + len));
}

void OfiMethod::backlog_drain(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    while (!p.in_payload && !p.failed) {
        auto it = p.backlog.find(p.rx_seq);
        if (it == p.backlog.end()) return;
        std::vector<std::byte> pkt = std::move(it->second);
        const std::uint32_t seq = it->first;
        p.backlog.erase(it);
        packet_handle(peer, seq, pkt.data(), pkt.size(), up);
    }
}

void OfiMethod::packet_handle(int peer, std::uint32_t seq, const std::byte* data, std::size_t len, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    p.rx_seq = (p.rx_seq + 1) & kSeqMask;
    adi::Header h{};
    if (len < sizeof h) {
        peer_fail(peer, "malformed packet (" + std::to_string(len) + " bytes) from " + where(peer), &up);
        return;
    }
    std::memcpy(&h, data, sizeof h);
    const std::uint64_t pay = adi::wire_payload(h);
    const bool inline_payload = len == sizeof h + pay;
    const bool separate = len == sizeof h && pay > 0;
    if (!inline_payload && !separate) {
        peer_fail(peer, "malformed packet from " + where(peer) + ": " + std::to_string(len) + " bytes for a payload of " +
                            std::to_string(pay), &up);
        return;
    }
    if (inline_payload) {
        up.on_packet(peer, h, data + sizeof h);
        return;
    }
    adi::Landing land = up.on_header(peer, h);
    if (!adi::carries_payload(h.type)) return;
    p.in_payload = true;
    p.pay_seq = seq;
    p.cur = h;
    p.land = land;
    p.direct = land.dest != nullptr && land.capacity >= pay;
    if (!p.direct) p.temp.resize(static_cast<std::size_t>(pay));
    p.rx_ctx.kind = CtxKind::payload;
    p.rx_ctx.peer = peer;
    payload_post(peer, &up);
}

void OfiMethod::payload_post(int peer, adi::Upcalls* up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    std::byte* into = p.direct ? p.land.dest : p.temp.data();
    ssize_t rc = fi_trecv(ep_, into, static_cast<std::size_t>(p.cur.length), nullptr, FI_ADDR_UNSPEC,
                          tag_make(kPayloadBit, p.pay_seq, peer), 0, &p.rx_ctx.fi);
    if (rc == -FI_EAGAIN) {
        if (!p.post_waiting) ++payloads_waiting_post_;
        p.post_waiting = true;
        return;
    }
    if (p.post_waiting) --payloads_waiting_post_;
    p.post_waiting = false;
    if (rc != 0) {
        p.in_payload = false;
        peer_fail(peer, "receiving from " + where(peer) + " failed: fi_trecv: " + err_text(rc), up);
        return;
    }
    go_send(peer, p.pay_seq);
}

void OfiMethod::go_send(int peer, std::uint32_t seq) {
    const std::uint64_t tag = tag_make(kGoBit, seq, ctx_.rank);
    const fi_addr_t to = peers_[static_cast<std::size_t>(peer)].addr;
    if (go_retry_.empty() && inject_size_ >= sizeof(std::uint64_t)) {
        ssize_t rc = fi_inject(ep_, &tag, kPrefix, to);
        if (rc == 0) return;
        if (rc != -FI_EAGAIN) {
            peer_fail(peer, "sending to " + where(peer) + " failed: fi_inject: " + err_text(rc), nullptr);
            return;
        }
    }
    if (inject_size_ >= sizeof(std::uint64_t)) {
        go_retry_.emplace_back(peer, seq);
        return;
    }
    // No inject: a posted send with its own context, freed at completion.
    auto* op = new TxOp;
    op->packet_ctx.kind = CtxKind::tx_packet;
    op->packet_ctx.owner = op;
    op->packet_ctx.peer = op->peer = peer;
    op->seq = seq;
    op->go = true;
    op->wire.tag = tag;
    op->stage = kStagePacket;
    ++tx_live_;
    if (retry_.empty() && tx_post(*op) != Post::again) return;
    retry_.push_back(op);
}

void OfiMethod::payload_arrived(int peer, std::size_t len, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (!p.in_payload) return;
    p.in_payload = false;
    if (len != p.cur.length) {
        peer_fail(peer, "payload from " + where(peer) + " came with " + std::to_string(len) + " bytes instead of " +
                            std::to_string(p.cur.length), &up);
        return;
    }
    adi::Landing land = p.land;
    if (!p.direct) {
        std::size_t landed = 0;
        land = adi::land_copy(up, peer, p.cur, land, landed, p.temp.data(), p.temp.size());
        std::vector<std::byte>().swap(p.temp);
    }
    up.on_payload(peer, p.cur, land);
    backlog_drain(peer, up);
}

void OfiMethod::peer_fail(int peer, const std::string& why, adi::Upcalls* up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.failed) return;
    p.failed = true;
    p.backlog.clear();
    // Payloads that wait for this peer's go never leave.
    for (auto it = awaiting_go_.begin(); it != awaiting_go_.end();) {
        TxOp* op = it->second;
        if (op->peer != peer) {
            ++it;
            continue;
        }
        it = awaiting_go_.erase(it);
        op->failed = true;
        op->stage = kStageDone;
        if (op->in_flight == 0) {
            --tx_live_;
            delete op;
        }
    }
    if (up != nullptr) {
        up->on_peer_failed(peer, why);
    } else {
        failures_.emplace_back(peer, why);
    }
}

void OfiMethod::completion_error(adi::Upcalls& up) {
    fi_cq_err_entry e{};
    if (fi_cq_readerr(cq_, &e, 0) != 1) return;
    auto* c = static_cast<Ctx*>(e.op_context);
    char prov[256] = "";
    const char* detail = fi_cq_strerror(cq_, e.prov_errno, e.err_data, prov, sizeof prov);
    std::string why = err_text(e.err);
    if (detail != nullptr && *detail != '\0') why += std::string(" (") + detail + ")";
    if (c == nullptr) return;
    switch (c->kind) {
        case CtxKind::bounce: {
            auto* b = static_cast<Bounce*>(c->owner);
            if (e.err == FI_ECANCELED) return;  // shutting down
            // An untagged completion does not name the sender; the packet's own
            // prefix does, when the provider delivered that much of it.
            std::uint64_t tag = ~0ull;
            if (e.len >= kPrefix) std::memcpy(&tag, b->buf.data(), kPrefix);
            const int from = static_cast<int>(tag & 0xffffffffu);
            if (from >= 0 && static_cast<std::size_t>(from) < peers_.size() && peers_[static_cast<std::size_t>(from)].reach) {
                peer_fail(from,
                          e.err == FI_ETRUNC
                              ? "a packet from " + where(from) + " exceeds the " + std::to_string(kBounceSize) +
                                    "-byte receive buffer; are both processes built from the same Strata version?"
                              : "receiving from " + where(from) + " failed: " + why,
                          &up);
            }
            bounce_post(*b);
            return;
        }
        case CtxKind::payload: {
            Peer& p = peers_[static_cast<std::size_t>(c->peer)];
            p.in_payload = false;
            if (e.err != FI_ECANCELED) peer_fail(c->peer, "receiving data from " + where(c->peer) + " failed: " + why, &up);
            return;
        }
        case CtxKind::tx_packet:
        case CtxKind::tx_payload: {
            auto* op = static_cast<TxOp*>(c->owner);
            op->failed = true;
            peer_fail(op->peer, "sending to " + where(op->peer) + " failed: " + why, &up);
            tx_done(op, up);
            return;
        }
    }
}

[[gnu::always_inline]] inline void OfiMethod::completion(const fi_cq_tagged_entry& e, adi::Upcalls& up) {
    auto* c = static_cast<Ctx*>(e.op_context);
    switch (c->kind) {
        case CtxKind::bounce: {
            auto* bounce = static_cast<Bounce*>(c->owner);
            std::uint64_t tag = 0;
            if (e.len >= kPrefix) std::memcpy(&tag, bounce->buf.data(), kPrefix);
            if (e.len >= kPrefix && (tag & kPayloadBit) == 0) {
                packet_arrived(static_cast<int>(tag & 0xffffffffu), static_cast<std::uint32_t>(tag >> 32) & kSeqMask,
                               (tag & kGoBit) != 0, bounce->buf.data() + kPrefix, e.len - kPrefix, up);
            }
            bounce_post(*bounce);
            break;
        }
        case CtxKind::payload: payload_arrived(c->peer, e.len, up); break;
        case CtxKind::tx_packet:
        case CtxKind::tx_payload: tx_done(static_cast<TxOp*>(c->owner), up); break;
    }
}

[[gnu::always_inline]] inline int OfiMethod::retries_post(adi::Upcalls& up) {
    int events = 0;
    if (!bounce_waiting_.empty()) {
        auto waiting = std::move(bounce_waiting_);
        bounce_waiting_.clear();
        for (Bounce* b : waiting) bounce_post(*b);
    }
    if (payloads_waiting_post_ > 0) {
        for (std::size_t i = 0; i < peers_.size(); ++i) {
            if (peers_[i].post_waiting && peers_[i].in_payload) payload_post(static_cast<int>(i), &up);
        }
    }
    while (!go_retry_.empty()) {
        const auto [peer, seq] = go_retry_.front();
        const std::uint64_t tag = tag_make(kGoBit, seq, ctx_.rank);
        ssize_t rc = fi_inject(ep_, &tag, kPrefix, peers_[static_cast<std::size_t>(peer)].addr);
        if (rc == -FI_EAGAIN) break;
        go_retry_.pop_front();
        if (rc != 0) peer_fail(peer, "sending to " + where(peer) + " failed: fi_inject: " + err_text(rc), &up);
    }
    while (!retry_.empty()) {
        TxOp* op = retry_.front();
        const Post st = tx_post(*op);
        if (st == Post::again) break;
        retry_.pop_front();
        ++events;
        if (st == Post::failed && op->in_flight == 0) {
            --tx_live_;
            delete op;
        }
    }
    return events;
}

int OfiMethod::poll(adi::Upcalls& up) {
    if (ep_ == nullptr) return 0;
    int events = 0;
    events += adi::failures_report(up, failures_);
    for (int b = 0; b < kMaxBatches; ++b) {
        fi_cq_tagged_entry entries[kBatch];
        ssize_t n = fi_cq_read(cq_, entries, kBatch);
        if (n == -FI_EAVAIL) {
            completion_error(up);
            ++events;
            continue;
        }
        if (n <= 0) break;
        for (ssize_t i = 0; i < n; ++i) completion(entries[i], up);
        events += static_cast<int>(n);
        if (n < kBatch) break;
    }
    // Receives and sends the provider refused earlier, now that completions freed room.
    events += retries_post(up);
    events += adi::failures_report(up, failures_);
    return events;
}

bool OfiMethod::busy() const {
    if (ep_ == nullptr) return false;
    if (!retry_.empty() || !go_retry_.empty() || payloads_waiting_post_ > 0 || !failures_.empty() || !bounce_waiting_.empty()) return true;
    if (wait_fd_ < 0) return false;
    // The provider may hold completions, or need a progress call, that the
    // descriptor does not announce: fi_trywait says whether blocking is safe.
    fid* fids[1] = {&cq_->fid};
    return fi_trywait(fabric_, fids, 1) != FI_SUCCESS;
}

void OfiMethod::shutdown() {
    for (TxOp* op : retry_) delete op;
    retry_.clear();
    if (ep_ != nullptr) fi_close(&ep_->fid);
    ep_ = nullptr;
    if (av_ != nullptr) fi_close(&av_->fid);
    av_ = nullptr;
    if (cq_ != nullptr) fi_close(&cq_->fid);
    cq_ = nullptr;
    wait_fd_ = -1;
    if (domain_ != nullptr) fi_close(&domain_->fid);
    domain_ = nullptr;
    if (fabric_ != nullptr) fi_close(&fabric_->fid);
    fabric_ = nullptr;
    if (info_ != nullptr) (*fabric_library())->freeinfo(info_);  // info_ came from the loaded library
    info_ = nullptr;
    bounces_.clear();
    bounce_waiting_.clear();
    for (Peer& p : peers_) {
        p.reach = false;
        p.in_payload = false;
    }
}

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx) {
    return std::make_unique<OfiMethod>(ctx, provider_knob.get());
}

}  // namespace strata::dev::ofi
