// What a port reads from whoever connects (wireup/port.hpp): the frames and
// every decoder; and what MPI_Comm_connect reads from the program: the port
// name, which must print back as it was read.
#include "wireup/port.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace strata::wireup::port;
    using strata::base::wire::decode;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (const auto name = name_parse(text); name.ok() && name_format(*name) != text) std::abort();
    strata::base::wire::FrameSplitter split(1, static_cast<std::uint8_t>(Type::refusal), kMaxFrame);
    split.feed(data, size / 2);
    split.feed(data + size / 2, size - size / 2);
    bool bad = false;
    while (auto f = split.next(bad)) {
        (void)decode<Hello>(f->payload);
        (void)decode<Challenge>(f->payload);
        (void)decode<Offer>(f->payload);
        (void)decode<Answer>(f->payload);
        (void)decode<Refusal>(f->payload);
    }
    return 0;
}
