#include "job/job_plan.hpp"

namespace strata::job {

namespace {

// A subjob's contact as the plan keeps it (see JobPlan::from_request).
std::string subjob_contact(const Contact& c, const LocalHost& local) {
    if (c.transport == Transport::gatekeeper && c.adapter == AdapterKind::fork && !c.port_given && local.is_local(c.host))
        return kLocalContact;
    return c.text();
}

}  // namespace

int Subjob::host_node(int index) const {
    if (host_nodes <= 1) return 0;
    const int base = count / host_nodes;
    const int extra = count % host_nodes;  // nodes with base + 1 processes, first
    const int fuller = extra * (base + 1);
    return index < fuller ? index / (base + 1) : extra + (index - fuller) / base;
}

JobPlan JobPlan::from_request(const JobRequest& request, const LocalHost& local) {
    JobPlan plan;
    for (const SubjobRequest& r : request.subjobs) {
        const int index = static_cast<int>(plan.subjobs.size());
        Subjob s;
        s.index = index;
        s.contact = subjob_contact(r.contact, local);
        s.machine = r.machine.empty() ? r.contact.host : r.machine;
        s.machine_label = r.machine;
        s.host = r.host;
        s.processor_name = r.processor_name;
        s.site = subjob_site(r);
        s.count = r.count;
        s.first_rank = plan.size;
        s.command = r.command;
        s.account = r.account;
        s.strata = r.strata;
        s.batch = r.batch;
        // At a fork contact hostCount spreads an emulated host over that many
        // emulated nodes (host_count_allowed): mpirun's doing, not the adapter's.
        if (r.contact.adapter == AdapterKind::fork && !r.host.empty() && r.batch.host_count > 1) {
            s.host_nodes = r.batch.host_count;
            s.batch.host_count = 0;
        }
        s.stage = r.stage || !r.stage_files.empty();
        s.stage_files = r.stage_files;
        s.network_private = r.network_private;
        plan.size += r.count;
        plan.subjobs.push_back(std::move(s));
    }
    return plan;
}

}  // namespace strata::job
