#include "mpi/hetero/foreign.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "collectives/collective.hpp"
#include "mpi/hetero/convert.hpp"

namespace strata::mpi {

namespace {

// The pool behind StageBuffer: a few buffers of at most kLargest bytes.
class StagePool {
public:
    coll::Bytes take() {
        if (free_.empty()) return {};
        coll::Bytes s = std::move(free_.back());
        free_.pop_back();
        s.clear();
        return s;
    }
    void give(coll::Bytes&& s) {
        if (free_.size() < kKept && s.capacity() > 0 && s.capacity() <= kLargest) free_.push_back(std::move(s));
    }

private:
    static constexpr std::size_t kKept = 8;
    static constexpr std::size_t kLargest = std::size_t{64} << 20;
    std::vector<coll::Bytes> free_;
};

StagePool& stage_pool() {
    static StagePool pool;
    return pool;
}

// Where a receive's message lands as it came, until the request completes and
// finish() converts it into the user's buffer.
class ForeignReceive final : public adi::Segment {
public:
    ForeignReceive(const Typemap& t, void* buf, int count, bool packed_target, std::size_t capacity)
        : map_(t.shared_from_this()), buf_(buf), count_(count), packed_target_(packed_target), capacity_(capacity) {}

    std::size_t size() const override { return capacity_; }
    // The bytes staged so far (a receive's Segment is only unpacked into; this
    // reads back what landed).
    void pack(std::size_t offset, std::size_t n, std::byte* out) const override {
        std::memcpy(out, raw_.data() + offset, n);
    }
    void unpack(std::size_t offset, std::size_t n, const std::byte* in) override {
        if (raw_.size() < offset + n) raw_.resize(offset + n);
        std::memcpy(raw_.data() + offset, in, n);
    }

    void finish(adi::Request& q) const {
        if (q.status.cancelled || q.status.error == adi::Error::peer_failed || !q.recv().matched) return;
        const std::size_t got = std::min<std::size_t>(q.status.bytes, raw_.size());
        if (map_->basic == MPI_PACKED) {
            packed_finish(q, got);
        } else {
            typed_finish(q, got);
        }
    }

private:
    // A receive into MPI_PACKED: a packed buffer as it came, or typed data
    // behind a header naming the sender's representation.
    void packed_finish(adi::Request& q, std::size_t got) const {
        const std::size_t room = form_bytes(*map_, count_, Representation::native());
        std::vector<std::byte> labelled;
        const std::byte* from = raw_.data();
        std::size_t n = got;
        if ((q.recv().flags & kFlagPacked) == 0) {
            labelled.resize(kPackedHeader + got);
            packed_header_write(labelled.data(), rt().representations[static_cast<std::size_t>(q.recv().matched_peer)]);
            if (got > 0) std::memcpy(labelled.data() + kPackedHeader, raw_.data(), got);
            from = labelled.data();
            n = labelled.size();
        }
        if (n > room) q.status.error = adi::Error::truncated;
        n = std::min(n, room);
        place(n, from);
        q.status.bytes = n;
    }

    // A typed receive: the sender's form (named by a packed header, or the
    // sender's representation) converted into this process's.
    void typed_finish(adi::Request& q, std::size_t got) const {
        const Runtime& r = rt();
        const std::byte* data = raw_.data();
        std::uint64_t length = q.recv().msg_length;
        Representation labelled;
        const Representation* from = &r.representations[static_cast<std::size_t>(q.recv().matched_peer)];
        if ((q.recv().flags & kFlagPacked) != 0) {
            base::Result<Representation> named = packed_header_read(data, got);
            if (!named) {  // MPI_PACKED data that MPI_Pack did not make
                q.status.error = adi::Error::truncated;
                q.status.bytes = 0;
                return;
            }
            labelled = *named;
            from = &labelled;
            data += kPackedHeader;
            got -= kPackedHeader;
            length -= kPackedHeader;
        }
        // What (count_, map_) holds in the sender's form: more is truncation.
        const std::size_t theirs = form_bytes(*map_, count_, *from);
        if (length > theirs) q.status.error = adi::Error::truncated;
        convert_in(q, data, std::min(got, theirs), *from);
    }

    void convert_in(adi::Request& q, const std::byte* data, std::size_t got, const Representation& from) const {
        const Representation& to = Representation::native();
        if (from == to) {
            place(got, data);
            q.status.bytes = got;
            return;
        }
        const Converted c = packed_target_ ? convert(*map_, count_, data, got, from, static_cast<std::byte*>(buf_), to)
                                           : form_read(*map_, data, got, count_, buf_, from);
        q.status.bytes = c.out;
        if (!c.fits) q.status.error = adi::Error::truncated;
    }

    // The receiver's packed bytes [0, n) into the user's buffer.
    void place(std::size_t n, const std::byte* packed) const {
        if (n == 0) return;
        if (packed_target_) {
            std::memcpy(buf_, packed, n);
        } else {
            typemap_unpack(*map_, buf_, 0, n, packed);
        }
    }

    TypemapPtr map_;
    void* buf_;
    int count_;
    bool packed_target_;
    std::size_t capacity_;
    StageBuffer raw_;
};

constexpr char kPackedMagic[4] = {'S', 'P', 'K', '1'};

}  // namespace

StageBuffer::StageBuffer(std::size_t n) : bytes_(stage_pool().take()) { bytes_.resize(n); }

StageBuffer::~StageBuffer() { stage_pool().give(std::move(bytes_)); }

StageBuffer& StageBuffer::operator=(StageBuffer&& other) noexcept {
    if (this != &other) {
        stage_pool().give(std::move(bytes_));
        bytes_ = std::move(other.bytes_);
    }
    return *this;
}

void StageBuffer::resize(std::size_t n) {
    if (bytes_.capacity() == 0) bytes_ = stage_pool().take();
    bytes_.resize(n);
}

bool comm_spans(const Comm& c) {
    if (c.cache.spans >= 0) return c.cache.spans != 0;
    const Runtime& r = rt();
    bool spans = false;
    if (r.heterogeneous) {
        const Representation& first = r.representations[static_cast<std::size_t>(c.world[0])];
        const auto differs = [&](int w) { return r.representations[static_cast<std::size_t>(w)] != first; };
        spans = std::any_of(c.world.begin(), c.world.end(), differs) ||
                std::any_of(c.local.begin(), c.local.end(), differs);
    }
    c.cache.spans = spans ? 1 : 0;
    return spans;
}

void packed_header_write(std::byte* out, const Representation& rep) {
    std::memset(out, 0, kPackedHeader);
    std::memcpy(out, kPackedMagic, sizeof kPackedMagic);
    const std::string bytes = rep.bytes();
    std::memcpy(out + sizeof kPackedMagic, bytes.data(), bytes.size());
}

base::Result<Representation> packed_header_read(const std::byte* in, std::size_t n) {
    if (n < kPackedHeader || std::memcmp(in, kPackedMagic, sizeof kPackedMagic) != 0) {
        return base::Error{
            "the packed data does not start with the header MPI_Pack writes on a communicator of "
            "processes that store data differently (was it packed for another communicator?)"};
    }
    const std::size_t length = Representation::native().bytes().size();
    return Representation::from_bytes(
        std::span<const char>(reinterpret_cast<const char*>(in) + sizeof kPackedMagic, length));
}

adi::Buffer foreign_receive(adi::Request& q, const Comm& c, const Typemap& t, void* buf, int count, bool packed,
                            int world_source) {
    const Runtime& r = rt();
    std::size_t capacity = 0;
    if (t.basic == MPI_PACKED) {
        capacity = form_bytes(t, count, Representation::native());
    } else if (world_source == adi::kAnySource) {
        for (const Representation& rep : r.forms) capacity = std::max(capacity, form_bytes(t, count, rep));
    } else {
        capacity = form_bytes(t, count, r.representations[static_cast<std::size_t>(world_source)]);
    }
    if (capacity == 0) return {};
    // A typed receive on such a communicator may meet a packed buffer's header.
    if (t.basic != MPI_PACKED && comm_spans(c)) capacity += kPackedHeader;
    auto stage = std::make_shared<ForeignReceive>(t, buf, count, packed, capacity);
    ForeignReceive* segment = stage.get();
    q.on_complete = [segment, &q] { segment->finish(q); };
    return adi::Buffer(std::move(stage));
}

namespace {

// long double formats by their digits; double-double sits below quad (the
// two never meet: MPI_Init refuses that job).
int digits_rank(LongDoubleFormat f) {
    switch (f) {
        case LongDoubleFormat::ieee_double: return 1;
        case LongDoubleFormat::x87_extended: return 2;
        case LongDoubleFormat::ibm_double_double: return 3;
        case LongDoubleFormat::ieee_quad: return 4;
        default: return 0;
    }
}

}  // namespace

Representation collective_form(const std::vector<int>& world) {
    const Runtime& r = rt();
    Representation form = r.representations[static_cast<std::size_t>(world[0])];
    for (const int w : world) {
        const Representation& p = r.representations[static_cast<std::size_t>(w)];
        for (std::size_t s = 0; s < Representation::kScalars; ++s) {
            if (s != Representation::kLongDouble) form.sizes[s] = std::max(form.sizes[s], p.sizes[s]);
        }
        const int have = digits_rank(form.long_double);
        const int theirs = digits_rank(p.long_double);
        auto& size = form.sizes[Representation::kLongDouble];
        if (theirs > have) {
            form.long_double = p.long_double;
            size = p.sizes[Representation::kLongDouble];
        } else if (theirs == have) {
            size = std::max(size, p.sizes[Representation::kLongDouble]);
        }
    }
    return form;
}

const Representation& send_form() {
    const Runtime& r = rt();
    return r.representations[static_cast<std::size_t>(r.world_rank)];
}

std::size_t form_bytes(const Typemap& t, int count, const Representation& form) {
    const auto n = static_cast<std::size_t>(count);
    if (t.bytes_only || form == Representation::native()) return n * static_cast<std::size_t>(t.size);
    return n * static_cast<std::size_t>(form_size(t, form));
}

bool form_write(const Typemap& t, const void* buf, int count, std::byte* out, const Representation& form) {
    const Representation& mine = Representation::native();
    const std::size_t bytes = form_bytes(t, count, mine);
    StageBuffer packed;
    const std::byte* in = nullptr;
    if (t.contiguous()) {
        in = byte_address(buf, t.true_lb);
    } else {
        packed.resize(bytes);
        typemap_pack(t, buf, 0, bytes, packed.data());
        in = packed.data();
    }
    return convert(t, count, in, bytes, mine, out, form).fits;
}

Converted form_read(const Typemap& t, const std::byte* in, std::size_t in_bytes, int count, void* buf,
                    const Representation& form) {
    const Representation& mine = Representation::native();
    StageBuffer packed;
    std::byte* out = t.contiguous() ? byte_address(buf, t.true_lb) : nullptr;
    if (out == nullptr) {
        packed.resize(form_bytes(t, count, mine));
        out = packed.data();
    }
    const Converted c = convert(t, count, in, in_bytes, form, out, mine);
    if (out == packed.data()) typemap_unpack(t, buf, 0, c.out, packed.data());
    return c;
}

base::Result<adi::Buffer> foreign_send(adi::Request& q, const Typemap& t, const void* buf, int count) {
    const std::size_t bytes = form_bytes(t, count, send_form());
    if (bytes == 0) return adi::Buffer{};
    auto copy = std::make_shared<StageBuffer>(bytes);
    if (!form_write(t, buf, count, copy->data(), send_form())) return base::Error{kSendFormUnfit};
    // The request holds the copy until it is destroyed (the engine reads it
    // until the send completes).
    q.on_complete = [copy] {};
    return adi::Buffer{copy->data(), copy->size()};
}

}  // namespace strata::mpi
