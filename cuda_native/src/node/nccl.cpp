// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/detail/check_call.hpp>
#include <ksync/ops.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if KSYNC_HAS_NCCL
#include <nccl.h>
#endif

namespace ksync::cuda {
namespace detail {

#if KSYNC_HAS_NCCL
struct nccl_state {
  std::vector<ncclComm_t> comms;  // one per device of a group, or this process's one
  ~nccl_state() {
    for (ncclComm_t comm : comms)
      (void)ncclCommDestroy(comm);
  }
};

namespace {
[[noreturn]] void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << call << " failed: " << ncclGetErrorString(status) << " at " << file << ':' << line;
  throw std::runtime_error(message.str());
}
#define KSYNC_NCCL_CHECK(call) KSYNC_DETAIL_CHECK_CALL(call, ncclSuccess, ::ksync::cuda::detail::throw_nccl_error)

// The communicator's handle, refused once it was aborted (an NCCL call would fail with less to say).
ncclComm_t handle_of(const node::nccl_communicator& comm, const char* where) {
  check_argument(!comm.aborted(), where,
                 "the NCCL communicator was aborted (a distributed solve on it failed on some rank): make another");
  return static_cast<ncclComm_t>(comm.native_handle());
}

// NCCL calls `enqueue` makes, as one group. Where one of them throws, the group is still closed: an open group
// would hold every later NCCL call of this thread, the abort of a failed solve's communicator too.
template <class Enqueue>
void in_one_group(const Enqueue& enqueue) {
  KSYNC_NCCL_CHECK(ncclGroupStart());
  try {
    enqueue();
  } catch (...) {
    (void)ncclGroupEnd();
    throw;
  }
  KSYNC_NCCL_CHECK(ncclGroupEnd());
}

ncclRedOp_t nccl_op(reduce_op op) {
  return foreign_op(op, ncclSum, ncclMin, ncclMax);
}

template <class T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  if constexpr (std::is_same_v<T, std::int64_t>) return ncclInt64;
  if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  return ncclFloat64;
}
}  // namespace
#else
struct nccl_state {};
[[noreturn]] void no_nccl(const char* where) {
  throw std::invalid_argument(std::string(where) +
                              ": this build of ksync has no NCCL (CMake did not find nccl.h and libnccl)");
}
#endif

void nccl_state_deleter::operator()(nccl_state* state) const noexcept {
  delete state;
}

template <class T>
void nccl_all_reduce_in_place(node::device_group& group, std::span<T* const> buffers, reduce_op op) {
#if KSYNC_HAS_NCCL
  auto& comms = group.nccl().comms;
  in_one_group([&] {
    for (int r = 0; r < group.size(); ++r)
      KSYNC_NCCL_CHECK(ncclAllReduce(buffers[static_cast<std::size_t>(r)], buffers[static_cast<std::size_t>(r)], 1,
                                     nccl_type<T>(), nccl_op(op), comms[static_cast<std::size_t>(r)], group.stream(r)));
  });
#else
  (void)group, (void)buffers, (void)op;
  no_nccl("ksync::cuda::node::reduce (combine_strategy::nccl)");
#endif
}

template <class T>
void nccl_all_reduce_in_place(const node::nccl_communicator& comm, cudaStream_t stream, T* data, std::size_t count,
                              reduce_op op) {
#if KSYNC_HAS_NCCL
  KSYNC_NCCL_CHECK(ncclAllReduce(data, data, count, nccl_type<T>(), nccl_op(op),
                                 handle_of(comm, "ksync::cuda::node::reduce (nccl_communicator)"), stream));
#else
  (void)comm, (void)stream, (void)data, (void)count, (void)op;
  no_nccl("ksync::cuda::node::reduce (nccl_communicator)");
#endif
}

template <class T>
void nccl_exchange_halo(const node::nccl_communicator& comm, cudaStream_t stream, const halo_plan& plan,
                        const T* packed, T* ghosts) {
#if KSYNC_HAS_NCCL
  const ncclComm_t handle = handle_of(comm, "ksync::cuda::mpi::cg (the NCCL form's halo)");
  in_one_group([&] {
    for (std::size_t s = 0; s < plan.source_ranks.size(); ++s)
      KSYNC_NCCL_CHECK(ncclRecv(ghosts + plan.source_offsets[s],
                                static_cast<std::size_t>(plan.source_offsets[s + 1] - plan.source_offsets[s]),
                                nccl_type<T>(), plan.source_ranks[s], handle, stream));
    for (std::size_t t = 0; t < plan.target_ranks.size(); ++t)
      KSYNC_NCCL_CHECK(ncclSend(packed + plan.target_offsets[t],
                                static_cast<std::size_t>(plan.target_offsets[t + 1] - plan.target_offsets[t]),
                                nccl_type<T>(), plan.target_ranks[t], handle, stream));
  });
#else
  (void)comm, (void)stream, (void)plan, (void)packed, (void)ghosts;
  no_nccl("ksync::cuda::mpi::cg (the NCCL form's halo)");
#endif
}

template void nccl_exchange_halo<float>(const node::nccl_communicator&, cudaStream_t, const halo_plan&, const float*,
                                        float*);
template void nccl_exchange_halo<double>(const node::nccl_communicator&, cudaStream_t, const halo_plan&, const double*,
                                         double*);

}  // namespace detail

namespace node {

bool has_nccl() noexcept {
  return KSYNC_HAS_NCCL != 0;
}

detail::nccl_state& device_group::nccl() const {
#if KSYNC_HAS_NCCL
  if (!nccl_) {
    auto state = std::make_unique<detail::nccl_state>();
    state->comms.resize(devices_.size());
    KSYNC_NCCL_CHECK(ncclCommInitAll(state->comms.data(), size(), devices_.data()));
    nccl_.reset(state.release());
  }
  return *nccl_;
#else
  detail::no_nccl("ksync::cuda::node::device_group::nccl");
#endif
}

nccl_communicator::id_bytes nccl_communicator::unique_id() {
  id_bytes bytes{};
#if KSYNC_HAS_NCCL
  ncclUniqueId id;
  KSYNC_NCCL_CHECK(ncclGetUniqueId(&id));
  static_assert(sizeof(id) == sizeof(bytes), "NCCL_UNIQUE_ID_BYTES is no longer 128");
  std::memcpy(bytes.data(), &id, sizeof(id));
#else
  detail::no_nccl("ksync::cuda::node::nccl_communicator::unique_id");
#endif
  return bytes;
}

namespace {
std::atomic<std::uint64_t> communicators_made{0};
}  // namespace

nccl_communicator::nccl_communicator(const id_bytes& id, int ranks, int rank)
    : ranks_(ranks), rank_(rank), serial_(++communicators_made) {
  detail::check_argument(ranks >= 1 && rank >= 0 && rank < ranks, "ksync::cuda::node::nccl_communicator",
                         "rank = ", rank, " and ranks = ", ranks, ": need 0 <= rank < ranks");
#if KSYNC_HAS_NCCL
  ncclUniqueId unique;
  std::memcpy(&unique, id.data(), sizeof(unique));
  auto state = std::make_unique<detail::nccl_state>();
  state->comms.resize(1);
  KSYNC_NCCL_CHECK(ncclCommInitRank(state->comms.data(), ranks, unique, rank));
  state_.reset(state.release());
#else
  (void)id;
  detail::no_nccl("ksync::cuda::node::nccl_communicator");
#endif
}

nccl_communicator::nccl_communicator(nccl_communicator&&) noexcept = default;
nccl_communicator& nccl_communicator::operator=(nccl_communicator&&) noexcept = default;
nccl_communicator::~nccl_communicator() = default;

void* nccl_communicator::native_handle() const noexcept {
#if KSYNC_HAS_NCCL
  return state_ && !state_->comms.empty() ? static_cast<void*>(state_->comms.front()) : nullptr;
#else
  return nullptr;
#endif
}

void nccl_communicator::abort() noexcept {
#if KSYNC_HAS_NCCL
  if (state_) {
    for (ncclComm_t comm : state_->comms)
      (void)ncclCommAbort(comm);  // ends it and frees it: nothing is left to destroy
    state_->comms.clear();
  }
#endif
  aborted_ = true;
}

template <class T>
void reduce(const nccl_communicator& comm, cudaStream_t stream, const T* data, std::size_t n, reduce_op op, T* result) {
  detail::check_argument(result != nullptr, "ksync::cuda::node::reduce (nccl_communicator)", "result is null");
  ksync::cuda::reduce(stream, data, n, op, reduce_strategy::automatic, result);
  detail::nccl_all_reduce_in_place(comm, stream, result, 1, op);
}

}  // namespace node

// NOLINTBEGIN(bugprone-macro-parentheses): T names a type in template arguments, where parentheses cannot go
#define KSYNC_NCCL_INSTANTIATE(T)                                                                                  \
  template void detail::nccl_all_reduce_in_place<T>(node::device_group&, std::span<T* const>, reduce_op);          \
  template void detail::nccl_all_reduce_in_place<T>(const node::nccl_communicator&, cudaStream_t, T*, std::size_t, \
                                                    reduce_op);                                                    \
  template void node::reduce<T>(const node::nccl_communicator&, cudaStream_t, const T*, std::size_t, reduce_op, T*);
KSYNC_NCCL_INSTANTIATE(std::int32_t)
KSYNC_NCCL_INSTANTIATE(std::int64_t)
KSYNC_NCCL_INSTANTIATE(float)
KSYNC_NCCL_INSTANTIATE(double)
#undef KSYNC_NCCL_INSTANTIATE
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace ksync::cuda
