// The files a Submit stages (gram/gram.hpp), written into the subjob's job
// directory as StageData brings them, file after file.
//
// Every file is created through the job directory's descriptor
// (base/dir_fd.hpp: openat, O_NOFOLLOW, O_EXCL), so a user who can write the
// scratch directory cannot redirect it. finish() checks each file's SHA-256
// against the Submit's and only then gives it its owner and mode (never
// setuid, setgid or sticky).
#pragma once

#include "adapters/scheduler_adapter.hpp"
#include "base/dir_fd.hpp"
#include "base/result.hpp"
#include "gram/gram.hpp"
#include "security/digest.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace strata::gatekeeper {

class Staging {
public:
    Staging() = default;
    ~Staging();
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;

    // Creates the files (mode 0600, this process's) in `dir`, whose path is `dir_path`.
    base::Status open(const std::vector<gram::StagedFile>& files, base::DirFd& dir, const std::string& dir_path);
    // Appends the next bytes, across file boundaries; fails when they exceed
    // what the Submit announced or cannot be written.
    base::Status add(const std::string& bytes);
    // Every announced byte arrived.
    bool complete() const;
    // Once complete: checks every file's digest and gives it `owner` (when
    // `chown`, i.e. running as root) and the Submit's mode.
    base::Status finish(const adapters::RunAs& owner, bool chown);

    bool empty() const { return files_.empty(); }
    std::size_t size() const { return files_.size(); }

private:
    struct File {
        gram::StagedFile file;
        std::string path;
        int fd = -1;
        std::uint32_t received = 0;
        security::Sha256 sha;
    };
    std::vector<File> files_;
    std::size_t at_ = 0;  // the file the next bytes go to
};

}  // namespace strata::gatekeeper
