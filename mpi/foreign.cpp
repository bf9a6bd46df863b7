#include "mpi/foreign.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "mpi/convert.hpp"

namespace strata::mpi {

namespace {

std::size_t bytes_in(const Typemap& t, int count, const Representation& rep) {
    return static_cast<std::size_t>(count) * static_cast<std::size_t>(form_size(t, rep));
}

// Where a receive's message lands as it came, until the request completes and
// finish() converts it into the user's buffer.
class ForeignReceive final : public adi::Segment {
public:
    ForeignReceive(const Typemap& t, void* buf, int count, bool packed, std::size_t capacity)
        : map_(t.shared_from_this()), buf_(buf), count_(count), packed_(packed), capacity_(capacity) {}

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

    void finish(adi::Request& q) const;

private:
    // The receiver's packed bytes [0, n) into the user's buffer.
    void place(std::size_t n, const std::byte* packed) const {
        if (packed_) {
            std::memcpy(buf_, packed, n);
        } else {
            typemap_unpack(*map_, buf_, 0, n, packed);
        }
    }
    // Where convert() may write the receiver's packed form directly.
    std::byte* direct() const {
        if (packed_) return static_cast<std::byte*>(buf_);
        return map_->contiguous() ? byte_address(buf_, map_->true_lb) : nullptr;
    }

    TypemapPtr map_;
    void* buf_;
    int count_;
    bool packed_;
    std::size_t capacity_;
    std::vector<std::byte> raw_;
};

void ForeignReceive::finish(adi::Request& q) const {
    if (q.status.cancelled || q.status.error == adi::Error::peer_failed || !q.recv().matched) return;
    const Runtime& r = rt();
    const Representation& from = r.representations[static_cast<std::size_t>(q.recv().matched_peer)];
    const Representation& to = Representation::native();
    // What (count_, map_) holds in the sender's form: more is truncation.
    const std::size_t theirs = bytes_in(*map_, count_, from);
    if (q.recv().msg_length > theirs) q.status.error = adi::Error::truncated;
    const std::size_t got = std::min<std::size_t>({q.status.bytes, theirs, raw_.size()});
    if (from == to) {
        place(got, raw_.data());
        q.status.bytes = got;
        return;
    }
    std::vector<std::byte> aside;
    std::byte* out = direct();
    if (out == nullptr) {
        aside.resize(bytes_in(*map_, count_, to));
        out = aside.data();
    }
    const Converted c = convert(*map_, count_, raw_.data(), got, from, out, to);
    if (out == aside.data()) place(c.out, out);
    q.status.bytes = c.out;
    if (!c.fits) q.status.error = adi::Error::truncated;
}

}  // namespace

adi::Buffer foreign_receive(adi::Request& q, const Typemap& t, void* buf, int count, bool packed, int world_source) {
    const Runtime& r = rt();
    std::size_t capacity = 0;
    if (world_source == adi::kAnySource) {
        for (const Representation& rep : r.forms) capacity = std::max(capacity, bytes_in(t, count, rep));
    } else {
        capacity = bytes_in(t, count, r.representations[static_cast<std::size_t>(world_source)]);
    }
    if (capacity == 0) return {};
    auto stage = std::make_shared<ForeignReceive>(t, buf, count, packed, capacity);
    ForeignReceive* segment = stage.get();
    q.on_complete = [segment, &q] { segment->finish(q); };
    return adi::Buffer(std::move(stage));
}

std::size_t send_form_bytes(const Typemap& t, int count) {
    const Runtime& r = rt();
    return bytes_in(t, count, r.representations[static_cast<std::size_t>(r.world_rank)]);
}

bool send_form_write(const Typemap& t, const void* buf, int count, std::byte* out) {
    const Runtime& r = rt();
    const Representation& mine = Representation::native();
    const std::size_t bytes = bytes_in(t, count, mine);
    std::vector<std::byte> packed;
    const std::byte* in = nullptr;
    if (t.contiguous()) {
        in = byte_address(buf, t.true_lb);
    } else {
        packed.resize(bytes);
        typemap_pack(t, buf, 0, bytes, packed.data());
        in = packed.data();
    }
    const Representation& sent = r.representations[static_cast<std::size_t>(r.world_rank)];
    return convert(t, count, in, bytes, mine, out, sent).fits;
}

void send_form_read(const Typemap& t, const std::byte* in, int count, void* buf) {
    const Runtime& r = rt();
    const Representation& mine = Representation::native();
    const Representation& sent = r.representations[static_cast<std::size_t>(r.world_rank)];
    std::vector<std::byte> packed(bytes_in(t, count, mine));
    const Converted c = convert(t, count, in, send_form_bytes(t, count), sent, packed.data(), mine);
    typemap_unpack(t, buf, 0, c.out, packed.data());
}

adi::Buffer foreign_send(adi::Request& q, const Typemap& t, const void* buf, int count, std::string& detail) {
    auto copy = std::make_shared<std::vector<std::byte>>(send_form_bytes(t, count));
    if (copy->empty()) return {};
    if (!send_form_write(t, buf, count, copy->data())) {
        detail = kSendFormUnfit;
        return {};
    }
    // The request holds the copy until it is destroyed (the engine reads it
    // until the send completes).
    q.on_complete = [copy] {};
    return {copy->data(), copy->size()};
}

}  // namespace strata::mpi
