// Forwards the ranks' stdout/stderr to mpirun's own, whole lines at a time.
//
// Chunks arrive with arbitrary boundaries; each (rank, stream) keeps its
// unfinished line until the newline arrives, so lines of different ranks never
// interleave and each rank's lines keep their order. With labels, every line
// starts with "[rank] ". At end of stream an unfinished last line is written
// with a newline added, so the next rank's line starts on a line of its own.
// A line longer than kMaxLine is written in pieces as it comes (only the first
// piece labelled): bounded memory beats perfect separation for such output.
#pragma once

#include "adapters/scheduler_adapter.hpp"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace strata::launcher {

class OutputForwarder {
public:
    static constexpr std::size_t kMaxLine = 64 * 1024;

    // Writes bytes to the destination of `stream`; false when the destination
    // is gone (e.g. stdout is a closed pipe).
    using Sink = std::function<bool(adapters::Stream, std::string_view)>;

    OutputForwarder(bool label, Sink sink);

    // Both return false when the sink failed.
    bool write(int rank, adapters::Stream stream, std::string_view bytes);
    bool close(int rank, adapters::Stream stream);
    // Ends every stream still open (used when mpirun stops reading early).
    bool close_all();

    // mpirun's stdout and stderr (blocking writes; EPIPE means gone).
    static Sink fd_sink();

private:
    struct Line {
        std::string text;
        bool continued = false;  // the text so far was already written (long line)
    };

    void append_prefix(int rank, std::string& out) const;

    bool label_;
    Sink sink_;
    std::map<std::pair<int, adapters::Stream>, Line> open_;
};

}  // namespace strata::launcher
