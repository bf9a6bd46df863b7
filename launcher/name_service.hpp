// mpirun's name service: MPI_Publish_name, MPI_Lookup_name and
// MPI_Unpublish_name (MPI-2 §5.4.4) of the job's processes reach it through
// the wire-up protocol (wireup/protocol.hpp: Names, NamesReply); it needs no
// daemon of its own.
//
// Names live as files in a directory of the user's: STRATA_NAME_DIR, else
// ~/.strata/names (made with mode 0700; refused when another account owns it
// or can write it). Every job whose mpirun sees that directory shares the
// names: mpiruns on one machine, or on machines that share the home
// directory, whichever sites their processes run at (a job's processes talk
// to their mpirun, not to the directory). One file per name, created only
// if it does not exist (a second publication of a name fails), holding the
// port name; the file's name is the service name in hexadecimal, so any
// bytes may name a service (up to kMaxService).
//
// A job unpublishes only what it published, and what it leaves published is
// unpublished when its mpirun ends (a client never finds the port of a job
// that is gone).
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"
#include "base/unique_fd.hpp"
#include "wireup/protocol.hpp"

namespace strata::launcher {

class NameService {
public:
    static constexpr std::size_t kMaxService = 120;
    static constexpr std::size_t kMaxPort = 1024;  // MPI_MAX_PORT_NAME

    // The directory STRATA_NAME_DIR or ~/.strata/names names; opened on first use.
    NameService();
    explicit NameService(std::string dir) : dir_path_(std::move(dir)) {}
    ~NameService();
    NameService(const NameService&) = delete;
    NameService& operator=(const NameService&) = delete;

    wireup::NamesReply handle(const wireup::Names& request);
    const std::string& dir() const { return dir_path_; }

private:
    base::Status dir_open();
    wireup::NamesReply publish(const std::string& service, const std::string& port);
    wireup::NamesReply lookup(const std::string& service);
    wireup::NamesReply unpublish(const std::string& service, const std::string& port);
    // The port name in the file of `service`, or nullopt (no such name).
    base::Result<std::string> read(const std::string& file) const;

    std::string dir_path_;
    base::UniqueFd dir_;
    std::vector<std::string> mine_;  // files this job published
};

}  // namespace strata::launcher
