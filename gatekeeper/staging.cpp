#include "gatekeeper/staging.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace strata::gatekeeper {

Staging::~Staging() {
    for (File& f : files_)
        if (f.fd >= 0) ::close(f.fd);
}

base::Status Staging::open(const std::vector<gram::StagedFile>& files, base::DirFd& dir, const std::string& dir_path) {
    for (const gram::StagedFile& f : files) {
        File s;
        s.file = f;
        s.path = dir_path + "/" + f.name;
        base::Result<base::UniqueFd> fd = dir.file_create(f.name, 0600);
        if (!fd) return fd.failure();
        s.fd = fd->release();
        files_.push_back(std::move(s));
    }
    return {};
}

base::Status Staging::add(const std::string& bytes) {
    std::size_t at = 0;
    while (at < bytes.size()) {
        while (at_ < files_.size() && files_[at_].received == files_[at_].file.size) ++at_;
        if (at_ == files_.size()) return base::Error{"more staged data than the request announced"};
        File& s = files_[at_];
        const std::size_t n = std::min<std::size_t>(bytes.size() - at, s.file.size - s.received);
        for (std::size_t done = 0; done < n;) {
            const ssize_t w = ::write(s.fd, bytes.data() + at + done, n - done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return base::Error{"cannot write " + s.path + ": " + std::strerror(errno)};
            done += static_cast<std::size_t>(w);
        }
        s.sha.update(bytes.data() + at, n);
        s.received += static_cast<std::uint32_t>(n);
        at += n;
    }
    return {};
}

bool Staging::complete() const {
    return std::all_of(files_.begin(), files_.end(), [](const File& s) { return s.received == s.file.size; });
}

base::Status Staging::finish(const adapters::RunAs& owner, bool chown) {
    for (File& s : files_) {
        if (s.fd < 0) continue;
        const std::string got = s.sha.hex();
        const bool owned = !chown || ::fchown(s.fd, owner.uid, owner.gid) == 0;
        // Never setuid, setgid or sticky.
        const bool moded = ::fchmod(s.fd, s.file.mode & 0777) == 0;
        const int saved = errno;
        ::close(s.fd);
        s.fd = -1;
        if (got != s.file.sha256)
            return base::Error{"the staged file '" + s.file.name + "' arrived damaged (SHA-256 " + got + ", expected " +
                               s.file.sha256 + ")"};
        if (!owned || !moded)
            return base::Error{"cannot set the owner and mode of " + s.path + ": " + std::strerror(saved)};
    }
    return {};
}

}  // namespace strata::gatekeeper
