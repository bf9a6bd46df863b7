// mpirun's channel to a user-level gatekeeper it starts itself
// (`strata-gatekeeper --stdio`): a child process whose stdin and stdout carry
// the gatekeeper protocol (gram/gram.hpp).
//
// For an ssh site (job/contact.hpp's "/ssh" contacts) the child is the
// system's OpenSSH client, run as
//
//   ssh -o BatchMode=yes -T -o ServerAliveInterval=S -o ServerAliveCountMax=3
//       [-p PORT] [-l USER] -- HOST 'exec PREFIX/bin/strata-gatekeeper --stdio'
//
// so that the user's ~/.ssh/config (ProxyJump, ControlMaster, agent
// forwarding, host keys) applies as the user set it up; nothing mpirun adds
// weakens host-key checking. S is a third of STRATA_PEER_TIMEOUT_S: a site
// cut off the network ends the session as fast as any control connection.
// STRATA_SSH replaces "ssh" with another command (words split at blanks),
// e.g. "ssh -F ~/grid/ssh_config". For a node of the Slurm allocation mpirun
// runs in ("node/srun"), srun_command(): a job step of one task on that node,
// with the whole node's share of the allocation, its stdio unbuffered
// (binary-safe: frames pass at once).
//
// The child's stderr (ssh's or srun's own messages and the remote
// gatekeeper's log) is kept, its last lines for the failure message, and
// each line handed to the owner. The child runs in a process group of its
// own (a Ctrl-C at the terminal reaches mpirun, which ends the subjob in
// order) and dies with mpirun (PR_SET_PDEATHSIG); when mpirun closes the
// pipes the session ends, and the remote gatekeeper, reading the end of its
// input, kills the subjob.
#pragma once

#include "base/result.hpp"
#include "job/contact.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <sys/types.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace strata::launcher {

// The command line that starts the remote gatekeeper: `ssh` is the client's
// words (STRATA_SSH), `strata` the remote prefix (empty: its login PATH).
std::vector<std::string> ssh_command(const std::vector<std::string>& ssh, const job::Contact& contact,
                                     const std::string& strata);

// The client's words: STRATA_SSH, else "ssh".
std::vector<std::string> ssh_client();

// The command line that starts the gatekeeper on a node of Slurm job `job_id`.
std::vector<std::string> srun_command(const job::Contact& contact, const std::string& job_id,
                                      const std::string& gatekeeper);

// strata-gatekeeper beside this mpirun (installed: the same bin/; built: the
// build tree's gatekeeper/), for nodes that share its filesystem; else
// "strata-gatekeeper" (found on the node's PATH).
std::string gatekeeper_beside_mpirun();

// How the ssh process ended: its exit status, or the signal that killed it.
struct ChannelExit {
    int status = 0;
    int signal = 0;
};

// Why the channel (`tool`: "ssh" or "srun") ended before its gatekeeper
// reported the subjob's end, from how it ended (255 from ssh: ssh itself
// failed; 126, 127: no gatekeeper there) and the last lines it wrote; once
// the gatekeeper had answered (`gatekeeper_ran`), the session was lost, and
// the gatekeeper's log lines are left out.
std::string channel_failure(const std::string& tool, const std::string& destination, const ChannelExit& how,
                            const std::string& stderr_tail, bool gatekeeper_ran);

class StdioChannel {
public:
    // Starts `argv`; `read_fd` and `write_fd` become the protocol's pipes
    // (the caller owns them), `line` hears each line of its stderr.
    static base::Result<std::unique_ptr<StdioChannel>> start(boost::asio::io_context& io,
                                                           const std::vector<std::string>& argv, int& read_fd,
                                                           int& write_fd, std::function<void(const std::string&)> line);
    // Ends the process if it still runs (SIGTERM) and reaps it; the lines it
    // wrote on stderr and nobody read yet still go to `line`.
    ~StdioChannel();
    StdioChannel(const StdioChannel&) = delete;
    StdioChannel& operator=(const StdioChannel&) = delete;

    // `exited` runs once the process ended and its stderr is read to the end
    // (at once if that happened already).
    void when_exited(std::function<void(const ChannelExit&)> exited);
    // The last lines of its stderr (at most 2 KiB).
    const std::string& stderr_tail() const { return tail_; }
    pid_t pid() const { return pid_; }

private:
    StdioChannel(boost::asio::io_context& io, pid_t pid, int err_fd, int pid_fd);
    void read_stderr();
    void stderr_take(std::size_t n);  // `n` bytes read into buf_: the complete lines to `line_`
    void stderr_drain();
    void wait_exit();
    void maybe_exited();
    // Waits for the process to end after its pipes closed: SIGTERM after a
    // second, SIGKILL two seconds later; then reaps it.
    void reap();

    pid_t pid_;
    boost::asio::posix::stream_descriptor err_;
    boost::asio::posix::stream_descriptor pidfd_;
    std::array<char, 4096> buf_{};
    std::string partial_;  // a line not ended yet
    std::string tail_;
    std::function<void(const std::string&)> line_;
    std::function<void(const ChannelExit&)> exited_;
    bool err_done_ = false;
    bool reaped_ = false;
    ChannelExit exit_;
};

}  // namespace strata::launcher
