#include "devices/shm/shm_method.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <random>
#include <string_view>
#include <thread>

#include "base/knob.hpp"
#include "base/numbers.hpp"
#include "wireup/environment.hpp"

namespace strata::dev::shm {

namespace {

const base::KnobInt ring_knob{"STRATA_SHM_RING", 131072,
                              "bytes of each shared-memory ring (one per pair of processes on a host, in the "
                              "receiver's segment); rounded to a power of two, at least 16K",
                              true};
const base::KnobInt eager_knob{"STRATA_SHM_EAGER_LIMIT", 16384,
                               "largest message the shared-memory method copies through its rings; larger ones "
                               "use rendezvous and cross in a single copy (process_vm_readv) where the kernel "
                               "allows it",
                               true};
const base::KnobInt cma_knob{"STRATA_SHM_CMA", 1,
                             "0: never read peers' memory with process_vm_readv; large payloads then stream "
                             "through the rings"};
const base::KnobInt share_knob{"STRATA_SHM_SHARE", 1,
                                "0: the receiver copies a single-copy message alone; 1: the sender, while it "
                                "waits, copies chunks of it too (messages of 256 KiB and more)"};
const base::KnobInt attach_ms{"STRATA_SHM_ATTACH_MS", 60000,
                              "milliseconds MPI_Init waits for a peer on the same host to create its "
                              "shared-memory segment"};

constexpr std::uint32_t kReady = 0x53484d31;  // "SHM1"

enum Kind : std::uint16_t {
    kPacket = 1,   // header + its whole payload
    kHead = 2,     // header + first fragment; kMore records follow
    kMore = 3,     // a fragment of the payload in progress
    kCma = 4,      // header + token + iovecs to read from the sender
    kCmaDone = 5,  // token: the receiver read it (sender's data is free)
    kWrap = 6,     // nothing more at the end of the ring: go on at its start
};

// A record's first 8 bytes: its size and kind, packed into one word that the
// writer stores last and the reader polls (0: nothing there yet).
struct Rec {
    std::uint32_t size;  // bytes of the record, this word included (before padding to a line)
    std::uint16_t kind;
};
constexpr std::size_t kRec = 8;

std::uint64_t rec_word(Rec r) { return std::uint64_t{r.size} | std::uint64_t{r.kind} << 32; }
Rec rec_of(std::uint64_t w) {
    return Rec{static_cast<std::uint32_t>(w), static_cast<std::uint16_t>(w >> 32)};
}
std::atomic_ref<std::uint64_t> word_at(std::byte* at) { return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(at)); }

struct RemoteIov {
    std::uint64_t addr;
    std::uint64_t len;
};

constexpr std::size_t kHeader = sizeof(adi::Header);
// Shared single copies: payloads of at least two chunks, copied by both ends.
constexpr std::size_t kShareChunk = 128 * 1024;
constexpr std::uint64_t kNoHelp = 1;
constexpr std::uint64_t kSharedBit = std::uint64_t{1} << 63;  // in a kCma record's iovec count
constexpr std::size_t kMaxIov = 64;  // iovecs in one single-copy descriptor

// Records start on cache lines, so a small packet (up to 16 payload bytes)
// is one line for the reader to fetch.
constexpr std::size_t kLine = 64;
std::size_t align_line(std::size_t n) { return (n + kLine - 1) & ~(kLine - 1); }

// The word every process lets its local peers read, to prove single copy works.
std::uint64_t g_probe_word = 0;

std::string errno_text() { return std::strerror(errno); }

}  // namespace

// A published address: "name,pid,probe address,probe value,ring bytes,uid".
struct ShmMethod::Address {
    std::string name;  // the main segment's, which also names the doorbell
    int pid = 0;
    std::uint64_t probe_addr = 0;
    std::uint64_t probe_value = 0;
    std::uint64_t ring = 0;
    unsigned uid = 0;
};

namespace {

using Address = ShmMethod::Address;

std::optional<Address> address_parse(std::string_view text) {
    std::array<std::string_view, 6> f;
    for (std::size_t i = 0; i < f.size(); ++i) {
        const std::size_t comma = i + 1 < f.size() ? text.find(',') : text.size();
        if (comma == std::string_view::npos) return std::nullopt;
        f[i] = text.substr(0, comma);
        text.remove_prefix(std::min(comma + 1, text.size()));
    }
    const base::ParsedInt<int> pid = base::parse_int<int>(f[1], 1);
    const std::optional<std::uint64_t> probe = base::parse_hex<std::uint64_t>(f[2]);
    const std::optional<std::uint64_t> value = base::parse_hex<std::uint64_t>(f[3]);
    const base::ParsedInt<std::uint64_t> ring = base::parse_int<std::uint64_t>(f[4]);
    const base::ParsedInt<unsigned> uid = base::parse_int<unsigned>(f[5]);
    if (f[0].empty() || f[0].size() > 63 || !pid || !probe || !value || !ring || !uid) return std::nullopt;
    return Address{std::string(f[0]), *pid, *probe, *value, *ring, *uid};
}

// The fields two processes must agree on to share rings: the account (each
// segment is its owner's, mode 0600) and the ring size (the layout).
std::string layout_of(const std::string& address) {
    auto comma = address.rfind(',');
    if (comma == std::string::npos || comma == 0) return {};
    comma = address.rfind(',', comma - 1);
    return comma == std::string::npos ? std::string() : address.substr(comma + 1);
}

// An inbox for a set: the owner's segment name and the set's id.
std::string inbox_name(const std::string& owner, std::uint64_t set) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, "-%016llx", static_cast<unsigned long long>(set));
    return owner + suffix;
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void copy_from_iov(std::span<const iovec> iov, std::size_t offset, std::byte* dst, std::size_t n) {
    for (const iovec& v : iov) {
        if (n == 0) return;
        if (offset >= v.iov_len) {
            offset -= v.iov_len;
            continue;
        }
        const std::size_t take = std::min(n, v.iov_len - offset);
        std::memcpy(dst, static_cast<const std::byte*>(v.iov_base) + offset, take);
        dst += take;
        n -= take;
        offset = 0;
    }
}

sockaddr_un bell_address(const std::string& name, socklen_t& len) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    // Abstract namespace: gone with the socket, nothing to clean up.
    const std::string path = "strata-bell" + name;
    std::memcpy(a.sun_path + 1, path.data(), std::min(path.size(), sizeof a.sun_path - 2));
    len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + std::min(path.size(), sizeof a.sun_path - 2));
    return a;
}

}  // namespace

// The reader learns of a record from its first word, not from a write counter:
// one cache line crosses per small packet instead of two. So that it never
// mistakes old bytes for a record, the first word of every line of free space
// is zero: the reader clears the lines of each record it consumed before
// handing them back (tail), and the writer stores a record's first word last.
struct alignas(64) ShmMethod::Ring {
    std::atomic<std::uint32_t> want_room;  // the producer has sends waiting for room
    char pad1[60];
    std::atomic<std::uint64_t> tail;  // bytes consumed, by the consumer
    char pad2[56];
    // A single copy both ends share (see read_cma and help): the producer
    // offers one of its single-copy sends, the consumer says where it lands,
    // then both copy chunks of it, each claiming the next one.
    std::atomic<std::uint64_t> share_token;  // the send on offer (its token), 0: none
    std::atomic<std::uint64_t> share_dest;   // where it lands (kNoHelp: the consumer copies alone), 0: not yet
    std::atomic<std::uint32_t> share_next;   // next chunk to claim
    std::atomic<std::uint32_t> share_done;   // chunks copied (or given up)
    std::atomic<std::uint32_t> share_orphan; // 1 + a chunk the producer claimed but could not copy, 0: none
    char pad3[36];
    std::byte* data() { return reinterpret_cast<std::byte*>(this + 1); }
};

// Layout: this control block, then one byte per local process (can the owner
// read that process's memory: 0 not probed, 1 yes, 2 no), then one ring per
// local process (the owner's own slot unused).
struct alignas(64) ShmMethod::Segment {
    std::atomic<std::uint32_t> ready;
    std::uint32_t nlocal;
    std::uint64_t ring_bytes;
    std::atomic<std::uint32_t> attached;  // peers that mapped it
    std::uint32_t attachers;              // how many will: the last removes its name
    char pad1[40];
    std::atomic<std::uint32_t> sleeping;  // the owner waits on its doorbell; the writer that rings it clears it
    std::atomic<std::uint32_t> cpu;       // 1 + the core the owner last waited on (0: not yet)
    char pad2[56];

    std::atomic<std::uint8_t>* cma_ok() { return reinterpret_cast<std::atomic<std::uint8_t>*>(this + 1); }
    static std::size_t rings_offset(std::size_t nlocal) { return sizeof(Segment) + (nlocal + 63) / 64 * 64; }
    static std::size_t bytes(std::size_t nlocal, std::size_t ring) {
        return rings_offset(nlocal) + nlocal * (sizeof(Ring) + ring);
    }
    Ring* ring(std::size_t index) {
        return reinterpret_cast<Ring*>(reinterpret_cast<std::byte*>(this) + rings_offset(nlocal) +
                                       index * (sizeof(Ring) + ring_bytes));
    }
};

ShmMethod::ShmMethod(adi::MethodContext ctx) : ctx_(std::move(ctx)) {
    caps_.name = "shm";
    caps_.eager_limit = static_cast<std::size_t>(std::max<std::int64_t>(eager_knob.get(), 0));
    caps_.poll_cost = 1;
    std::size_t ring = 16384;
    while (ring < static_cast<std::size_t>(std::min<std::int64_t>(ring_knob.get(), 1 << 30))) ring <<= 1;
    ring_bytes_ = ring;
    // A record never exceeds a quarter of the ring, so a writer always finds room soon.
    frag_ = ring / 4 - kRec - kHeader;
}

ShmMethod::~ShmMethod() { shutdown(); }

base::Status ShmMethod::publish(wireup::BusinessCard& card) {
    std::random_device rd;
    std::uniform_int_distribution<std::uint64_t> dist;
    const std::uint64_t salt = dist(rd);
    g_probe_word = dist(rd) | 1;
    probe_value_ = g_probe_word;
    const std::string prefix = wireup::shm_segment_prefix(getpid());
    char name[96];
    std::snprintf(name, sizeof name, "/%s%d-%016llx", prefix.c_str(), ctx_.rank,
                  static_cast<unsigned long long>(salt));
    name_ = name;
    bell_fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    socklen_t len = 0;
    sockaddr_un a = bell_address(name_, len);
    if (bell_fd_ < 0 || ::bind(bell_fd_, reinterpret_cast<sockaddr*>(&a), len) != 0) {
        return base::Error{"shared memory: cannot open the wake-up socket: " + errno_text()};
    }
    // Local peers may read our buffers (single copy) even where Yama restricts ptrace.
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    char addr[192];
    std::snprintf(addr, sizeof addr, "%s,%d,%llx,%llx,%llu,%u", name_.c_str(), static_cast<int>(getpid()),
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(&g_probe_word)),
                  static_cast<unsigned long long>(probe_value_), static_cast<unsigned long long>(ring_bytes_),
                  static_cast<unsigned>(::getuid()));
    card.publish("shm", addr);
    return {};
}

bool ShmMethod::links(const wireup::BusinessCard& a, const wireup::BusinessCard& b) {
    const std::string x = a.entry("shm");
    const std::string y = b.entry("shm");
    return !x.empty() && !y.empty() && a.host == b.host && layout_of(x) == layout_of(y) &&
           adi::same_representation(a, b);
}

void ShmMethod::address_take(Peer& p, const Address& a) {
    p.bell = a.name;
    p.pid = a.pid;
    p.probe_addr = a.probe_addr;
    p.probe_value = a.probe_value;
}

base::Status ShmMethod::connect_world(const adi::World& world) {
    const auto& cards = world.cards;
    const int my_rank = world.rank;
    ctx_.rank = my_rank;
    card_ = cards[static_cast<std::size_t>(my_rank)];
    peer_of_world_.assign(cards.size(), -1);
    // Local: the same host, the same account and the same data representation
    // (links()). Processes of other accounts (a site may map subjobs to
    // different users) cannot open our 0600 segments, and those of another
    // representation (another byte order, emulated) would misread our
    // records; they use the next method.
    std::vector<int> local;
    for (std::size_t r = 0; r < cards.size(); ++r) {
        if (static_cast<int>(r) == my_rank || links(card_, cards[r])) local.push_back(static_cast<int>(r));
    }
    nlocal_ = static_cast<int>(local.size());
    if (nlocal_ < 2) return {};
    my_index_ = static_cast<int>(std::find(local.begin(), local.end(), my_rank) - local.begin());
    for (int i = 0; i < nlocal_; ++i) {
        if (i == my_index_) continue;
        Peer p;
        p.world = local[static_cast<std::size_t>(i)];
        p.index = i;
        p.slot = my_index_;
        const std::string a = cards[static_cast<std::size_t>(p.world)].entry("shm");
        const std::optional<Address> where = address_parse(a);
        if (!where) {
            return base::Error{"shared memory: rank " + std::to_string(p.world) + " published a malformed address '" +
                               a + "'"};
        }
        address_take(p, *where);
        p.name = where->name;
        peer_of_world_[static_cast<std::size_t>(p.world)] = static_cast<int>(peers_.size());
        peers_.push_back(std::move(p));
    }
    base::Result<Inbox> created =
        segment_create(name_, static_cast<std::size_t>(nlocal_), static_cast<std::uint32_t>(nlocal_ - 1));
    if (!created) return created.failure();
    mine_ = created->seg;
    mine_bytes_ = created->bytes;
    for (Peer& p : peers_) {
        p.in = mine_->ring(static_cast<std::size_t>(p.index));
        const bool ok = cma_knob.get() != 0 && probe_cma(p);
        mine_->cma_ok()[p.index].store(ok ? 1 : 2, std::memory_order_release);
        p.cma_from = ok;
    }
    for (Peer& p : peers_) {
        if (base::Status attached = segment_attach(p); !attached) return attached;
    }
    return {};
}

bool ShmMethod::peers_add(const adi::PeerSet& set) {
    if (bell_fd_ < 0 || card_.host.empty() || set.first < ctx_.size) return false;
    // A set the engine could not add leaves its indexes to this one.
    peers_close(set.first, std::numeric_limits<int>::max() - set.first);
    peer_of_world_.resize(static_cast<std::size_t>(set.first) + set.cards.size(), -1);
    // Set ranks: the accepting group first. Our ring in a peer's inbox is our
    // place in our group.
    const std::uint32_t our_first = set.first_rank == 0 ? static_cast<std::uint32_t>(set.cards.size()) : 0;
    std::deque<Peer> found;
    for (std::size_t k = 0; k < set.cards.size(); ++k) {
        if (!links(card_, set.cards[k])) continue;
        const std::optional<Address> where = address_parse(set.cards[k].entry("shm"));
        if (!where) continue;  // not ours to reach; TCP will say what is wrong with its card
        Peer p;
        p.world = set.first + static_cast<int>(k);
        p.index = static_cast<int>(k);
        p.slot = static_cast<int>(set.my_rank - our_first);
        p.set = set.id;
        address_take(p, *where);
        p.name = inbox_name(where->name, set.id);
        found.push_back(std::move(p));
    }
    if (found.empty()) return true;  // takes the set, reaches none of it
    if (probe_fd_ < 0) probe_fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    base::Result<Inbox> created =
        segment_create(inbox_name(name_, set.id), set.cards.size(), static_cast<std::uint32_t>(found.size()));
    if (!created) return true;  // TCP carries the set's links
    Inbox box = *created;
    box.first = set.first;
    set_inboxes_.push_back(box);
    for (Peer& p : found) {
        p.in = box.seg->ring(static_cast<std::size_t>(p.index));
        p.cma_from = cma_knob.get() != 0 && probe_cma(p);
        box.seg->cma_ok()[p.index].store(p.cma_from ? 1 : 2, std::memory_order_release);
    }
    // Every process of both groups makes its inbox before it maps the others'.
    // One it cannot map (its process failed to join, or ended) is left to TCP,
    // which reports what became of it.
    for (Peer& p : found) {
        if (!segment_attach(p)) continue;
        peer_of_world_[static_cast<std::size_t>(p.world)] = static_cast<int>(peers_.size());
        peers_.push_back(std::move(p));
        ++set_peers_;
    }
    return true;
}

void ShmMethod::peer_forget(Peer& p) {
    if (!p.queue.empty()) --queued_peers_;
    p.queue.clear();
    cma_pending_ -= p.cma_out;
    p.cma_out = 0;
    p.share_token = 0;
}

void ShmMethod::peers_close(int first, int count) {
    const auto closing = [&](int world) { return world >= first && world - first < count; };
    std::deque<Peer> kept;
    for (Peer& p : peers_) {
        if (p.set == 0 || !closing(p.world)) {
            kept.push_back(std::move(p));
            continue;
        }
        peer_forget(p);
        if (p.seg != nullptr) ::munmap(p.seg, p.seg_bytes);
        --set_peers_;
    }
    peers_ = std::move(kept);
    std::fill(peer_of_world_.begin() + std::min<std::ptrdiff_t>(ctx_.size, std::ssize(peer_of_world_)),
              peer_of_world_.end(), -1);
    for (std::size_t i = 0; i < peers_.size(); ++i)
        peer_of_world_[static_cast<std::size_t>(peers_[i].world)] = static_cast<int>(i);
    std::erase_if(set_inboxes_, [&](Inbox& box) {
        if (!closing(box.first)) return false;
        inbox_drop(box);
        return true;
    });
}

void ShmMethod::inbox_drop(Inbox& box) {
    ::munmap(box.seg, box.bytes);
    ::shm_unlink(box.name.c_str());  // normally gone already; not if a peer never mapped it
}

bool ShmMethod::peer_ended(const Peer& p) const {
    // Its doorbell is bound while it lives (abstract socket names go with
    // their sockets): connecting a datagram socket to it sends nothing.
    socklen_t len = 0;
    sockaddr_un a = bell_address(p.bell, len);
    return probe_fd_ >= 0 && ::connect(probe_fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 && errno == ECONNREFUSED;
}

bool ShmMethod::sets_check_alive() {
    // At most every 100 ms, and only while waiting (sleep_prepare).
    const std::int64_t now = now_ns();
    if (set_peers_ == 0 || probe_fd_ < 0 || now - alive_checked_ns_ < 100'000'000) return false;
    alive_checked_ns_ = now;
    bool ended = false;
    for (Peer& p : peers_) {
        if (p.set == 0 || p.gone || !peer_ended(p)) continue;
        // What it wrote before it ended is delivered first (it writes no more).
        if (word_at(p.in->data() + (p.in_tail & (ring_bytes_ - 1))).load(std::memory_order_acquire) != 0) continue;
        p.gone = true;
        peer_forget(p);
        failures_.emplace_back(p.world, "shared memory: process " + std::to_string(p.index) +
                                            " of the other job (pid " + std::to_string(p.pid) + ") ended");
        ended = true;
    }
    return ended;
}

base::Result<ShmMethod::Inbox> ShmMethod::segment_create(const std::string& name, std::size_t rings,
                                                         std::uint32_t attachers) {
    Inbox box;
    box.name = name;
    box.bytes = Segment::bytes(rings, ring_bytes_);
    const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        return base::Error{"shared memory: cannot create " + name + ": " + errno_text() +
                           "; check that /dev/shm is mounted"};
    }
    if (::ftruncate(fd, static_cast<off_t>(box.bytes)) != 0) {
        base::Error failed{"shared memory: cannot size " + name + " to " + std::to_string(box.bytes) +
                           " bytes: " + errno_text() + "; /dev/shm may be full (STRATA_SHM_RING sets the ring size)"};
        ::close(fd);
        ::shm_unlink(name.c_str());
        return failed;
    }
    void* at = ::mmap(nullptr, box.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (at == MAP_FAILED) {
        base::Error failed{"shared memory: cannot map " + name + ": " + errno_text()};
        ::shm_unlink(name.c_str());
        return failed;
    }
    box.seg = static_cast<Segment*>(at);  // a fresh file reads as zeros: rings empty, nothing probed
    box.seg->nlocal = static_cast<std::uint32_t>(rings);
    box.seg->ring_bytes = ring_bytes_;
    box.seg->attachers = attachers;
    box.seg->ready.store(kReady, std::memory_order_release);
    return box;
}

base::Status ShmMethod::segment_attach(Peer& p) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(attach_ms.get());
    int fd = -1;
    for (unsigned waits = 0;; ++waits) {
        fd = ::shm_open(p.name.c_str(), O_RDWR | O_CLOEXEC, 0);
        struct stat st {};
        if (fd >= 0 && ::fstat(fd, &st) == 0 && static_cast<std::size_t>(st.st_size) >= sizeof(Segment)) {
            p.seg_bytes = static_cast<std::size_t>(st.st_size);
            break;
        }
        if (fd >= 0) ::close(fd);
        if (fd < 0 && errno != ENOENT) {
            return base::Error{"shared memory: cannot open rank " + std::to_string(p.world) + "'s segment " + p.name +
                               ": " + errno_text()};
        }
        if (std::chrono::steady_clock::now() > deadline) {
            return base::Error{"shared memory: rank " + std::to_string(p.world) +
                               " did not create its segment within " + std::to_string(attach_ms.get()) +
                               " ms (STRATA_SHM_ATTACH_MS)"};
        }
        // Another job's process that ended will never make its inbox.
        if (p.set != 0 && waits % 256 == 255 && peer_ended(p))
            return base::Error{"shared memory: process " + std::to_string(p.index) + " of the other job ended"};
        // The peer is usually about to make it (another job joining now):
        // yield for a while before sleeping in 200 us steps.
        if (waits < 1000) {
            std::this_thread::yield();
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
    void* at = ::mmap(nullptr, p.seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (at == MAP_FAILED) {
        return base::Error{"shared memory: cannot map rank " + std::to_string(p.world) + "'s segment: " + errno_text()};
    }
    p.seg = static_cast<Segment*>(at);
    while (p.seg->ready.load(std::memory_order_acquire) != kReady) std::this_thread::yield();
    if (p.seg->ring_bytes != ring_bytes_ || p.slot >= static_cast<int>(p.seg->nlocal) ||
        (p.set == 0 && p.seg->nlocal != static_cast<std::uint32_t>(nlocal_)) ||
        Segment::bytes(p.seg->nlocal, ring_bytes_) > p.seg_bytes) {
        ::munmap(p.seg, p.seg_bytes);
        p.seg = nullptr;
        return base::Error{"shared memory: rank " + std::to_string(p.world) +
                           " laid out its segment differently (are STRATA_SHM_RING settings equal on every rank?)"};
    }
    p.out = p.seg->ring(static_cast<std::size_t>(p.slot));
    // The last peer to map a segment removes its name: nothing stays in /dev/shm.
    if (p.seg->attached.fetch_add(1, std::memory_order_acq_rel) + 1 == p.seg->attachers) ::shm_unlink(p.name.c_str());
    return {};
}

bool ShmMethod::probe_cma(const Peer& p) const {
    std::uint64_t got = 0;
    iovec local{&got, sizeof got};
    iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(p.probe_addr)), sizeof got};
    return ::process_vm_readv(p.pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(sizeof got) &&
           got == p.probe_value;
}

bool ShmMethod::reaches(int peer) const {
    return peer >= 0 && static_cast<std::size_t>(peer) < peer_of_world_.size() &&
           peer_of_world_[static_cast<std::size_t>(peer)] >= 0;
}

bool ShmMethod::single_copy_from(int peer) const {
    return reaches(peer) && peers_[static_cast<std::size_t>(peer_of_world_[static_cast<std::size_t>(peer)])].cma_from;
}

bool ShmMethod::can_single_copy_to(const Peer& p) const {
    return p.seg->cma_ok()[p.slot].load(std::memory_order_acquire) == 1;
}

std::byte* ShmMethod::reserve(Peer& p, std::size_t bytes) {
    const std::size_t need = align_line(bytes);
    const std::size_t pos = p.out_head & (ring_bytes_ - 1);
    const std::size_t contiguous = ring_bytes_ - pos;
    const std::size_t total = need <= contiguous ? need : contiguous + need;
    if (p.out_head + total - p.out_tail_seen > ring_bytes_) {
        p.out_tail_seen = p.out->tail.load(std::memory_order_acquire);
        if (p.out_head + total - p.out_tail_seen > ring_bytes_) return nullptr;
    }
    if (need > contiguous) {
        // The reader may go on at the ring's start at once: it finds a zero word
        // there until the record is committed.
        word_at(p.out->data() + pos).store(rec_word(Rec{static_cast<std::uint32_t>(contiguous), kWrap}),
                                           std::memory_order_release);
        p.out_head += contiguous;
        return p.out->data();
    }
    return p.out->data() + pos;
}

void ShmMethod::commit(Peer& p, std::byte* at, std::uint16_t kind, std::size_t bytes) {
    // Sequentially consistent, pairing with sleep_prepare(): either the reader
    // sees this record or we see its sleeping flag.
    word_at(at).store(rec_word(Rec{static_cast<std::uint32_t>(bytes), kind}), std::memory_order_seq_cst);
    p.out_head += align_line(bytes);
    if (p.seg->sleeping.load(std::memory_order_seq_cst) != 0) ring_bell(p);
}

void ShmMethod::ring_bell(const Peer& p) {
    // The first writer to see the flag takes it and rings; later ones (and
    // this one's next records) see a sleeper already being woken. The owner's
    // sleep_end() drains the bell only when the flag was taken.
    if (p.seg->sleeping.exchange(0, std::memory_order_seq_cst) == 0) return;
    socklen_t len = 0;
    sockaddr_un a = bell_address(p.bell, len);
    const char b = 0;
    // A full socket queue means a wake-up is already pending.
    (void)::sendto(bell_fd_, &b, 1, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&a), len);
}

bool ShmMethod::write(Peer& p, OutPacket& o) {
    if (o.what == What::cma_done) {
        std::byte* at = reserve(p, kRec + sizeof o.token);
        if (at == nullptr) return false;
        std::memcpy(at + kRec, &o.token, sizeof o.token);
        commit(p, at, kCmaDone, kRec + sizeof o.token);
        return true;
    }
    if (o.what == What::cma) {
        const std::size_t bytes = kRec + kHeader + 8 + 8 + o.iov.size() * sizeof(RemoteIov);
        std::byte* at = reserve(p, bytes);
        if (at == nullptr) return false;
        std::byte* w = at + kRec;
        std::memcpy(w, &o.header, kHeader);
        std::memcpy(w + kHeader, &o.token, 8);
        std::uint64_t n = o.iov.size();
        if (share_offer(p, o)) n |= kSharedBit;
        std::memcpy(w + kHeader + 8, &n, 8);
        auto* r = reinterpret_cast<RemoteIov*>(w + kHeader + 16);
        for (const iovec& v : o.iov) *r++ = RemoteIov{reinterpret_cast<std::uintptr_t>(v.iov_base), v.iov_len};
        commit(p, at, kCma, bytes);
        ++cma_pending_;
        ++p.cma_out;
        return true;
    }
    if (!o.header_sent) {
        const std::size_t f = std::min(o.payload, frag_);
        const std::size_t bytes = kRec + kHeader + f;
        std::byte* at = reserve(p, bytes);
        if (at == nullptr) return false;
        std::memcpy(at + kRec, &o.header, kHeader);
        copy_from_iov(o.iov, 0, at + kRec + kHeader, f);
        commit(p, at, f == o.payload ? kPacket : kHead, bytes);
        o.header_sent = true;
        o.sent = f;
    }
    while (o.sent < o.payload) {
        const std::size_t f = std::min(o.payload - o.sent, frag_ + kHeader);
        std::byte* at = reserve(p, kRec + f);
        if (at == nullptr) return false;
        copy_from_iov(o.iov, o.sent, at + kRec, f);
        commit(p, at, kMore, kRec + f);
        o.sent += f;
    }
    return true;
}

void ShmMethod::enqueue(Peer& p, std::unique_ptr<OutPacket> o) {
    if (p.queue.empty()) {
        ++queued_peers_;
        // Asks the reader to ring our doorbell when it makes room (we may sleep meanwhile).
        p.out->want_room.store(1, std::memory_order_relaxed);
    }
    p.queue.push_back(std::move(o));
}

adi::SendStatus ShmMethod::send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) {
    Peer& p = peers_[static_cast<std::size_t>(peer_of_world_[static_cast<std::size_t>(peer)])];
    if (p.gone) [[unlikely]] return adi::SendStatus::failed;
    std::size_t n = 0;
    for (const iovec& v : data) n += v.iov_len;
    // The common case first: nothing queued and the packet fits one record.
    if (put_whole(p, h, data, n)) return adi::SendStatus::done;
    auto o = std::make_unique<OutPacket>();
    o->header = h;
    o->iov.assign(data.begin(), data.end());
    o->token = token;
    o->payload = n;
    if (h.type == adi::Packet::rndv_data && n > frag_ && data.size() <= kMaxIov && can_single_copy_to(p)) {
        o->what = What::cma;
    }
    if (p.queue.empty() && write(p, *o)) {
        if (o->what != What::cma) return adi::SendStatus::done;
        return adi::SendStatus::queued;  // completes when the receiver's kCmaDone arrives
    }
    enqueue(p, std::move(o));
    return adi::SendStatus::queued;
}

bool ShmMethod::put_whole(Peer& p, const adi::Header& h, std::span<const iovec> data, std::size_t n) {
    std::byte* at = put_begin(p, h, n);
    if (at == nullptr) return false;
    copy_from_iov(data, 0, at + kRec + kHeader, n);
    commit(p, at, kPacket, kRec + kHeader + n);
    return true;
}

std::byte* ShmMethod::put_begin(Peer& p, const adi::Header& h, std::size_t n) {
    if (!p.queue.empty() || n > frag_) return nullptr;
    std::byte* at = reserve(p, kRec + kHeader + n);
    if (at != nullptr) std::memcpy(at + kRec, &h, kHeader);
    return at;
}

bool ShmMethod::send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) {
    Peer& p = peers_[static_cast<std::size_t>(peer_of_world_[static_cast<std::size_t>(peer)])];
    if (p.gone) [[unlikely]] return false;
    std::byte* at = put_begin(p, h, n);
    if (at == nullptr) return false;
    if (n > 0) std::memcpy(at + kRec + kHeader, data, n);
    commit(p, at, kPacket, kRec + kHeader + n);
    return true;
}

int ShmMethod::flush(Peer& p, adi::Upcalls& up) {
    int written = 0;
    while (!p.queue.empty()) {
        if (!write(p, *p.queue.front())) break;
        ++written;
        const std::unique_ptr<OutPacket> o = std::move(p.queue.front());
        p.queue.pop_front();
        if (p.queue.empty()) {
            --queued_peers_;
            p.out->want_room.store(0, std::memory_order_relaxed);
        }
        // A copied packet's data is free now; a single-copy one waits for kCmaDone.
        if (o->what == What::packet && o->token != 0) up.on_sent(o->token);
    }
    return written;
}

void ShmMethod::read_cma(Peer& p, adi::Upcalls& up, const std::byte* body) {
    adi::Header h;
    std::memcpy(&h, body, kHeader);
    std::uint64_t token = 0;
    std::uint64_t niov = 0;
    std::memcpy(&token, body + kHeader, 8);
    std::memcpy(&niov, body + kHeader + 8, 8);
    const bool shared = (niov & kSharedBit) != 0;
    niov &= ~kSharedBit;
    const auto* remote = reinterpret_cast<const RemoteIov*>(body + kHeader + 16);
    adi::Landing land = up.on_header(p.world, h);
    if (shared) {
        // The sender offered to copy chunks too: only into one landing that
        // takes the whole payload (else it is told to stay out).
        if (land.dest != nullptr && land.capacity >= h.length && niov == 1) {
            if (!read_shared(p, land.dest, remote[0].addr, h.length)) return;
            up.on_payload(p.world, h, land);
            cma_done_send(p, token);
            return;
        }
        p.in->share_dest.store(kNoHelp, std::memory_order_release);
    }
    std::size_t landed = 0;
    std::uint64_t left = h.length;
    std::size_t ri = 0;       // remote iovec
    std::uint64_t roff = 0;   // offset in it
    while (left > 0 && land.dest != nullptr && land.capacity > 0) {
        if (landed == land.capacity) {
            land = up.on_landing_full(p.world, h, land);
            landed = 0;
            continue;
        }
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, land.capacity - landed));
        iovec local{land.dest + landed, n};
        iovec rv[kMaxIov];
        std::size_t k = 0;
        std::uint64_t want = n;
        std::size_t ri2 = ri;
        std::uint64_t roff2 = roff;
        while (want > 0 && ri2 < niov && k < kMaxIov) {
            const std::uint64_t take = std::min(want, remote[ri2].len - roff2);
            rv[k++] = iovec{reinterpret_cast<void*>(static_cast<std::uintptr_t>(remote[ri2].addr + roff2)),
                            static_cast<std::size_t>(take)};
            want -= take;
            roff2 += take;
            if (roff2 == remote[ri2].len) {
                ++ri2;
                roff2 = 0;
            }
        }
        const ssize_t got = ::process_vm_readv(p.pid, &local, 1, rv, k, 0);
        if (got <= 0) {
            failures_.emplace_back(p.world, "shared memory: cannot read rank " + std::to_string(p.world) +
                                                "'s message (process_vm_readv: " + errno_text() + ")");
            return;
        }
        ++cma_reads_;
        // Advance the remote position by what arrived.
        std::uint64_t adv = static_cast<std::uint64_t>(got);
        while (adv > 0) {
            const std::uint64_t take = std::min(adv, remote[ri].len - roff);
            adv -= take;
            roff += take;
            if (roff == remote[ri].len) {
                ++ri;
                roff = 0;
            }
        }
        landed += static_cast<std::size_t>(got);
        left -= static_cast<std::uint64_t>(got);
    }
    if (shared) p.in->share_token.store(0, std::memory_order_release);
    up.on_payload(p.world, h, land);
    cma_done_send(p, token);
}

void ShmMethod::cma_done_send(Peer& p, std::uint64_t token) {
    auto done = std::make_unique<OutPacket>();
    done->what = What::cma_done;
    done->token = token;
    if (p.queue.empty() && write(p, *done)) return;
    enqueue(p, std::move(done));
}

bool ShmMethod::share_offer(Peer& p, const OutPacket& o) {
    // One shared copy at a time per pair, and only where we may write into the
    // receiver's memory (the same permission as reading it).
    if (share_knob.get() == 0 || o.iov.size() != 1 || o.payload < 2 * kShareChunk || !p.cma_from ||
        p.share_token != 0 || p.out->share_token.load(std::memory_order_acquire) != 0) {
        return false;
    }
    p.out->share_next.store(0, std::memory_order_relaxed);
    p.out->share_done.store(0, std::memory_order_relaxed);
    p.out->share_orphan.store(0, std::memory_order_relaxed);
    p.out->share_dest.store(0, std::memory_order_relaxed);
    p.out->share_token.store(o.token, std::memory_order_release);  // the record is committed after this
    p.share_token = o.token;
    p.share_src = reinterpret_cast<std::uintptr_t>(o.iov[0].iov_base);
    p.share_bytes = o.payload;
    return true;
}

namespace {

std::uint32_t share_chunks(std::uint64_t bytes) {
    return static_cast<std::uint32_t>((bytes + kShareChunk - 1) / kShareChunk);
}

// Chunk c of a shared copy of `bytes`: its offset and length.
std::pair<std::uint64_t, std::size_t> share_chunk(std::uint64_t bytes, std::uint32_t c) {
    const std::uint64_t off = std::uint64_t{c} * kShareChunk;
    return {off, static_cast<std::size_t>(std::min<std::uint64_t>(kShareChunk, bytes - off))};
}

// Copies len bytes between our `local` and `remote` in process `pid`, reading
// (or writing) until all went or the kernel refuses.
bool cma_copy(pid_t pid, bool write, std::byte* local, std::uint64_t remote, std::size_t len) {
    while (len > 0) {
        iovec l{local, len};
        iovec r{reinterpret_cast<void*>(static_cast<std::uintptr_t>(remote)), len};
        const ssize_t n = write ? ::process_vm_writev(pid, &l, 1, &r, 1, 0) : ::process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) return false;
        local += n;
        remote += static_cast<std::uint64_t>(n);
        len -= static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

bool ShmMethod::read_shared(Peer& p, std::byte* dest, std::uint64_t src, std::uint64_t bytes) {
    Ring& s = *p.in;
    const std::uint32_t chunks = share_chunks(bytes);
    s.share_dest.store(reinterpret_cast<std::uintptr_t>(dest), std::memory_order_release);
    auto fail = [&] {
        failures_.emplace_back(p.world, "shared memory: cannot read rank " + std::to_string(p.world) +
                                            "'s message (process_vm_readv: " + errno_text() + ")");
        return false;
    };
    for (;;) {
        const std::uint32_t c = s.share_next.fetch_add(1, std::memory_order_acq_rel);
        if (c >= chunks) break;
        const auto [off, len] = share_chunk(bytes, c);
        if (!cma_copy(p.pid, false, dest + off, src + off, len)) return fail();
        ++cma_reads_;
        s.share_done.fetch_add(1, std::memory_order_release);
    }
    // The sender may still be copying a chunk it claimed.
    for (unsigned spins = 1; s.share_done.load(std::memory_order_acquire) < chunks; ++spins) {
        if (spins % 256 == 0) {
            if (::kill(p.pid, 0) != 0 && errno == ESRCH) {
                failures_.emplace_back(p.world, "shared memory: rank " + std::to_string(p.world) +
                                                    " ended while it copied part of its message");
                return false;
            }
            std::this_thread::yield();
        }
    }
    if (const std::uint32_t orphan = s.share_orphan.load(std::memory_order_acquire); orphan != 0) {
        // A chunk the sender could not write: ours to read.
        const auto [off, len] = share_chunk(bytes, orphan - 1);
        if (!cma_copy(p.pid, false, dest + off, src + off, len)) return fail();
        ++cma_reads_;
    }
    s.share_token.store(0, std::memory_order_release);
    return true;
}

int ShmMethod::help(Peer& p) {
    // Our single-copy send on offer: once the receiver said where it lands,
    // copy chunks into it until none is left.
    Ring& s = *p.out;
    if (s.share_token.load(std::memory_order_acquire) != p.share_token) {
        p.share_token = 0;  // the receiver is done with it
        return 0;
    }
    const std::uint64_t dest = s.share_dest.load(std::memory_order_acquire);
    if (dest == 0) return 0;
    if (dest == kNoHelp) {
        p.share_token = 0;
        return 0;
    }
    const std::uint32_t chunks = share_chunks(p.share_bytes);
    int events = 0;
    for (;;) {
        const std::uint32_t c = s.share_next.fetch_add(1, std::memory_order_acq_rel);
        if (c >= chunks) break;
        const auto [off, len] = share_chunk(p.share_bytes, c);
        if (!cma_copy(p.pid, true, reinterpret_cast<std::byte*>(p.share_src + off), dest + off, len)) {
            s.share_orphan.store(c + 1, std::memory_order_relaxed);
            s.share_done.fetch_add(1, std::memory_order_release);
            break;
        }
        ++share_writes_;
        s.share_done.fetch_add(1, std::memory_order_release);
        ++events;
    }
    p.share_token = 0;
    return events;
}

void ShmMethod::release(Peer& p) {
    // Zeroes the first word of every consumed line (where the next records'
    // words will be polled), then hands the space back.
    std::byte* data = p.in->data();
    for (std::uint64_t at = p.in_released; at != p.in_tail; at += kLine) {
        word_at(data + (at & (ring_bytes_ - 1))).store(0, std::memory_order_relaxed);
    }
    p.in_released = p.in_tail;
    p.in->tail.store(p.in_tail, std::memory_order_release);
}

int ShmMethod::drain(Peer& p, adi::Upcalls& up) {
    std::byte* data = p.in->data();
    int events = 0;
    // At most one ring's worth per call, so a fast writer cannot keep us here.
    for (std::size_t consumed = 0; consumed < ring_bytes_;) {
        const std::size_t pos = p.in_tail & (ring_bytes_ - 1);
        const std::uint64_t word = word_at(data + pos).load(std::memory_order_acquire);
        if (word == 0) break;
        const Rec rec = rec_of(word);
        const std::byte* body = data + pos + kRec;
        const std::size_t len = rec.size - kRec;
        switch (rec.kind) {
            case kPacket: {
                adi::Header h;
                std::memcpy(&h, body, kHeader);
                if (adi::wire_payload(h) == len - kHeader) [[likely]] {
                    up.on_packet(p.world, h, body + kHeader);
                    break;
                }
                [[fallthrough]];  // malformed: what fits is delivered, the rest is lost
            }
            case kHead: {
                std::memcpy(&p.cur, body, kHeader);
                p.land = up.on_header(p.world, p.cur);
                p.landed = 0;
                if (!adi::carries_payload(p.cur.type)) break;
                const std::size_t f = len - kHeader;
                p.land = adi::land_copy(up, p.world, p.cur, p.land, p.landed, body + kHeader, f);
                p.remaining = adi::wire_payload(p.cur) - f;
                if (rec.kind == kPacket) {
                    up.on_payload(p.world, p.cur, p.land);
                } else {
                    p.in_payload = true;
                }
                break;
            }
            case kMore:
                p.land = adi::land_copy(up, p.world, p.cur, p.land, p.landed, body, len);
                p.remaining -= len;
                if (p.remaining == 0) {
                    p.in_payload = false;
                    up.on_payload(p.world, p.cur, p.land);
                }
                break;
            case kCma:
                read_cma(p, up, body);
                break;
            case kCmaDone: {
                std::uint64_t token = 0;
                std::memcpy(&token, body, 8);
                if (p.share_token == token) p.share_token = 0;
                if (p.gone) break;  // its sends were failed already
                --cma_pending_;
                --p.cma_out;
                up.on_sent(token);
                break;
            }
            default:  // kWrap
                break;
        }
        const std::size_t span = rec.kind == kWrap ? rec.size : align_line(rec.size);
        p.in_tail += span;
        consumed += span;
        ++events;
        // Lines we hold unreleased are not zeroed: never let the next word we
        // poll be one of them.
        if (p.in_tail - p.in_released >= ring_bytes_ / 4) release(p);
    }
    // Consumed lines go back to the writer when nothing more has arrived, a
    // quarter of the ring is held (above), or the writer waits for room; not right
    // after a packet, whose answer would otherwise wait behind our stores to
    // lines the writer holds.
    const bool want_room = p.in->want_room.load(std::memory_order_relaxed) != 0;
    if (p.in_tail != p.in_released && (events == 0 || want_room)) release(p);
    // A writer waiting for room in this ring may be asleep.
    if (want_room) {
        std::atomic_thread_fence(std::memory_order_seq_cst);
        if (p.seg->sleeping.load(std::memory_order_relaxed) != 0) ring_bell(p);
    }
    return events;
}

int ShmMethod::poll(adi::Upcalls& up) {
    int events = 0;
    events += adi::failures_report(up, failures_);
    if (queued_peers_ > 0) {
        for (Peer& p : peers_) {
            if (!p.queue.empty()) events += flush(p, up);
        }
    }
    for (Peer& p : peers_) {
        if (p.share_token != 0) events += help(p);
        events += drain(p, up);
    }
    return events;
}

int ShmMethod::poll_peer(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer_of_world_[static_cast<std::size_t>(peer)])];
    int events = adi::failures_report(up, failures_);
    if (!p.queue.empty()) events += flush(p, up);
    if (p.share_token != 0) events += help(p);
    return events + drain(p, up);
}

bool ShmMethod::busy() const {
    for (const Peer& p : peers_) {
        if (word_at(p.in->data() + (p.in_tail & (ring_bytes_ - 1))).load(std::memory_order_seq_cst) != 0) return true;
    }
    return !failures_.empty();
}

bool ShmMethod::sleep_prepare() {
    if (peers_.empty()) return !busy();
    if (set_peers_ > 0 && sets_check_alive()) return false;
    for (Peer& p : peers_) {
        if (p.in_tail != p.in_released) release(p);
    }
    inboxes_each([](Segment& seg) { seg.sleeping.store(1, std::memory_order_seq_cst); });
    std::atomic_thread_fence(std::memory_order_seq_cst);
    bool work = busy();
    // A queued send waits for room: room that appeared means work.
    for (const Peer& p : peers_) {
        if (!p.queue.empty() && p.out->tail.load(std::memory_order_acquire) != p.out_tail_seen) work = true;
    }
    if (work) inboxes_each([](Segment& seg) { seg.sleeping.store(0, std::memory_order_relaxed); });
    return !work;
}

bool ShmMethod::shares_cpu(int cpu) {
    if (peers_.empty() || cpu < 0) return false;
    const auto mark = static_cast<std::uint32_t>(cpu) + 1;
    // Peers read this line at every send (the sleeping flag): write it only
    // when the core changed.
    inboxes_each([mark](Segment& seg) {
        if (seg.cpu.load(std::memory_order_relaxed) != mark) seg.cpu.store(mark, std::memory_order_relaxed);
    });
    bool shared = false;
    for (const Peer& p : peers_) shared = shared || p.seg->cpu.load(std::memory_order_relaxed) == mark;
    return shared;
}

void ShmMethod::sleep_end() {
    // Still set: nobody rang, nothing to drain (no system call). Taken: a
    // writer rang (or is about to; a datagram that lands after the drain
    // only wakes the next sleep early).
    if (peers_.empty()) return;  // sleep_prepare set no flag
    bool rung = false;
    inboxes_each([&rung](Segment& seg) { rung = seg.sleeping.exchange(0, std::memory_order_relaxed) == 0 || rung; });
    if (!rung) return;
    char buf[64];
    while (::recv(bell_fd_, buf, sizeof buf, MSG_DONTWAIT) > 0) {
    }
}

void ShmMethod::shutdown() {
    for (Peer& p : peers_) {
        if (p.seg != nullptr) ::munmap(p.seg, p.seg_bytes);
        p.seg = nullptr;
    }
    if (mine_ != nullptr) {
        ::munmap(mine_, mine_bytes_);
        mine_ = nullptr;
        ::shm_unlink(name_.c_str());  // normally gone already; not if a peer never attached
    }
    for (Inbox& box : set_inboxes_) inbox_drop(box);
    set_inboxes_.clear();
    if (bell_fd_ >= 0) ::close(bell_fd_);
    bell_fd_ = -1;
    if (probe_fd_ >= 0) ::close(probe_fd_);
    probe_fd_ = -1;
}

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx) { return std::make_unique<ShmMethod>(ctx); }

}  // namespace strata::dev::shm
