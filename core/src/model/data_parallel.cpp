#include "model/data_parallel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace paraplan::detail {
namespace {

// Megatron-LM DDP buckets: bucket_size = max(40000000, 1000000 * dp_group.size()) parameters
// (megatron/core/distributed/distributed_data_parallel.py, "make buckets larger to ensure that
// chunks used in NCCL ring-reduce implementations are large enough to remain bandwidth-bound").
constexpr double kBucketParameters = 40e6;
constexpr double kBucketParametersPerRank = 1e6;

// `buckets` collectives of equal size, one after the other on the data-parallel communicator.
template <typename Collective>
double bucketed_s(Collective collective, const GpuSpec& gpu, const Group& group, double bytes,
                  double buckets) {
  if (bytes <= 0 || group.size <= 1) return 0;
  return buckets * collective(gpu, group, bytes / buckets);
}

// One model chunk's parameters as Megatron-LM buckets them: the first chunk of the first
// pipeline stage in buckets of bucket_size, every other chunk and stage in one bucket
// (megatron/training/training.py per_chunk_bucket_sizes: "None if (disable or pp_rank > 0)",
// disable = chunk_idx > 0), and every chunk in one bucket without overlap_grad_reduce
// (distributed_data_parallel.py: "Set bucket_size to infinity if overlap_grad_reduce is False",
// as at core_r0.8.0): nothing is gained by splitting a collective that starts after the backward.
double chunk_buckets(const StageSync& in, int64_t chunk, double chunk_parameters) {
  if (chunk > 0 || !in.first_stage || chunk_parameters <= 0) return 1;
  if (!in.strategy->overlap_grad_reduce) return 1;
  const double bucket =
      std::max(kBucketParameters, kBucketParametersPerRank * static_cast<double>(in.data_parallel));
  return std::max(1.0, std::ceil(chunk_parameters / bucket));
}

// Communication time of one chunk's share of a per-iteration collective, dense and expert
// parameters on their own groups.
struct ChunkComm {
  double time_s = 0;
  double last_bucket_s = 0;  // what can only start once the chunk's last gradient exists
};

// The time of the bucket that holds the input embedding. Megatron-LM's buffer fills buckets in
// backward order and closes one once it holds bucket_size parameters
// (param_and_grad_buffer.py _compute_default_per_buffer_param_layout: "for param in
// params[::-1]", ">= bucket_size"), so the embedding, the model's first parameter and the
// backward's last gradient, lies whole in the last bucket however large it is: its
// reduce-scatter starts after the last backward, and the next forward's first pre-hook waits for
// its all-gather (the first bucket dispatched). Only the DDP buffer (distributed optimizer or
// not) lays parameters out this way.
template <typename Collective>
double embedding_bucket_s(Collective collective, const StageSync& in, const Group& dp,
                          double embedding_bytes_per_parameter) {
  if (in.strategy->zero_stage > 1 || in.embedding_parameters <= 0) return 0;
  return bucketed_s(collective, *in.gpu, dp,
                    embedding_bytes_per_parameter * in.embedding_parameters, 1);
}

template <typename Collective>
ChunkComm chunk_comm(Collective collective, const StageSync& in, int64_t chunk,
                     double bytes_per_parameter, double embedding_bytes_per_parameter) {
  const Strategy& s = *in.strategy;
  const double v = static_cast<double>(s.virtual_pipeline_model_parallel_size);
  const double dense = in.parameters / v;
  const double experts = in.expert_parameters / v;
  const double buckets = chunk_buckets(in, chunk, dense + experts);
  const Group dp = data_parallel_group(*in.gpu, s, in.data_parallel);
  const Group edp = expert_data_parallel_group(*in.gpu, s, in.data_parallel);
  ChunkComm comm;
  comm.time_s = bucketed_s(collective, *in.gpu, dp, bytes_per_parameter * dense, buckets) +
                bucketed_s(collective, *in.gpu, edp, bytes_per_parameter * experts, buckets);
  comm.last_bucket_s = comm.time_s / buckets;
  if (chunk == 0 && buckets > 1) {
    const double embedding_s =
        embedding_bucket_s(collective, in, dp, embedding_bytes_per_parameter);
    comm.last_bucket_s = std::min(comm.time_s, std::max(comm.last_bucket_s, embedding_s));
  }
  return comm;
}

// The per-chunk collectives of a stage. Only the first stage's first chunk is bucketed
// (chunk_buckets); every other chunk holds the same parameters in one bucket, so one is computed
// for all of them.
struct ChunkComms {
  ChunkComm first;
  ChunkComm rest;
  size_t chunks = 1;

  size_t size() const { return chunks; }
  const ChunkComm& operator[](size_t j) const { return j == 0 ? first : rest; }
  double total_s() const {
    double total = first.time_s;
    for (size_t j = 1; j < chunks; ++j) total += rest.time_s;
    return total;
  }
};

template <typename Collective>
ChunkComms chunk_comms(Collective collective, const StageSync& in, int64_t chunks,
                       double bytes_per_parameter, double embedding_bytes_per_parameter) {
  ChunkComms comms;
  comms.chunks = static_cast<size_t>(chunks);
  comms.first = chunk_comm(collective, in, 0, bytes_per_parameter, embedding_bytes_per_parameter);
  comms.rest = chunks > 1 && in.first_stage ? chunk_comm(collective, in, 1, bytes_per_parameter,
                                                         embedding_bytes_per_parameter)
                                            : comms.first;
  return comms;
}

// Gradient sync under (interleaved) 1F1B with overlap_grad_reduce: chunk j's gradients are
// final when its last micro-batch's backward ends (schedules.py backward_step_helper_postprocess
// launches grad_sync_func[chunk] then), after which the cool-down still runs the backward of
// `stages` micro-batches of each chunk below it; chunk 0's buckets go out as its last backward
// produces them. All chunks queue on the one data-parallel communicator. Times are relative to
// the end of the stage's last backward; returns what sticks out past it.
double grad_queue_exposed_s(const ChunkComms& chunks, double chunk_backward_s, double stages) {
  double t = -std::numeric_limits<double>::infinity();
  for (size_t j = chunks.size() - 1; j >= 1; --j) {
    const double ready = -static_cast<double>(j) * stages * chunk_backward_s;
    t = std::max(t, ready) + chunks[j].time_s;
  }
  const ChunkComm& first = chunks.first;
  t = std::max(t, -chunk_backward_s) + (first.time_s - first.last_bucket_s);
  t = std::max(t, 0.0) + first.last_bucket_s;
  return std::max(0.0, t);
}

// Parameter all-gather with overlap_param_gather: chunks 0 and 1 start with the iteration, chunk
// j >= 2 when chunk j-1's first micro-batch starts its forward (schedules.py
// forward_step_helper_preprocess: "launch param synchronization for next model chunk"); chunk 0
// streams bucket by bucket under its own first forward, chunk j is needed after `stages`
// micro-batches of each chunk below it. Returns the compute stalled waiting for parameters.
double param_queue_exposed_s(const ChunkComms& chunks, double chunk_forward_s,
                             double first_window_s, double stages) {
  const ChunkComm& first = chunks.first;
  double stall = std::max(first.last_bucket_s, first.time_s - first_window_s);
  double comm_free = first.time_s;
  for (size_t j = 1; j < chunks.size(); ++j) {
    const double jd = static_cast<double>(j);
    const double launch = j == 1 ? 0.0 : stall + (jd - 1) * stages * chunk_forward_s;
    comm_free = std::max(launch, comm_free) + chunks[j].time_s;
    const double need = stall + jd * stages * chunk_forward_s;
    stall += std::max(0.0, comm_free - need);
  }
  return stall;
}

// What overlapping costs: the exposed part, plus compute slowed while the rest is hidden.
double with_overlap_cost(const GpuSpec& gpu, double comm_s, double exposed_s) {
  return exposed_s + gpu.overlap_slowdown * std::max(0.0, comm_s - exposed_s);
}

}  // namespace

Group data_parallel_group(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp) {
  return place_group(data_parallel_cp, s.tensor_model_parallel_size, gpu.nvlink_domain_gpus);
}

Group expert_data_parallel_group(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp) {
  // parallel_state.py: expert tensor innermost, then expert, then expert-data parallel, over
  // the stage's tensor x context x data ranks.
  const int64_t expert_model = s.expert_tensor_parallel() * s.expert_model_parallel_size;
  const int64_t edp =
      std::max<int64_t>(1, s.tensor_model_parallel_size * data_parallel_cp / expert_model);
  return place_group(edp, expert_model, gpu.nvlink_domain_gpus);
}

SyncTime iteration_sync(const StageSync& in) {
  const Strategy& s = *in.strategy;
  SyncTime out;
  if (in.data_parallel <= 1) return out;
  const int zero = s.zero_stage;
  if (zero == 3) return out;  // every collective is per layer and micro-batch
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  const double stages = static_cast<double>(in.stages);
  const double chunk_forward_s = in.forward_s / static_cast<double>(v);
  const double chunk_backward_s = in.backward_s / static_cast<double>(v);
  // Gradients in the main-gradient dtype; parameters in the weights' (fp8 layer weights with
  // fp8_param_gather), averaged over the stage's layer and edge parameters.
  const ParameterBytes& bytes = *in.bytes;
  const double grad_bytes = bytes.gradient;
  const double param_bytes = in.parameters > 0
                                 ? (bytes.layer_gather * (in.parameters - in.edge_parameters) +
                                    bytes.edge_gather * in.edge_parameters) /
                                       in.parameters
                                 : bytes.layer_gather;

  // Gradients: DDP all-reduces them, the distributed optimizer reduce-scatters them; ZeRO-2
  // (Megatron-FSDP optim_grads) already reduce-scattered them with every micro-batch.
  if (zero <= 1) {
    const ChunkComms grads = zero == 0
                                 ? chunk_comms(all_reduce_s, in, v, grad_bytes, grad_bytes)
                                 : chunk_comms(reduce_scatter_s, in, v, grad_bytes, grad_bytes);
    const double total = grads.total_s();
    const double exposed =
        s.overlap_grad_reduce ? grad_queue_exposed_s(grads, chunk_backward_s, stages) : total;
    // Earlier stages finish their last backward sooner, by the drain of the stages before them.
    out.grad_exposed_s = std::max(0.0, with_overlap_cost(*in.gpu, total, exposed) -
                                           in.backward_before_s / static_cast<double>(v));
  }

  // Parameters: the distributed optimizer and ZeRO-2 all-gather the updated shards.
  if (zero >= 1) {
    const ChunkComms params = chunk_comms(all_gather_s, in, v, param_bytes, bytes.edge_gather);
    const double total = params.total_s();
    const double first_window_s = chunk_forward_s + in.forward_before_s / static_cast<double>(v);
    const double exposed = s.overlap_param_gather ? param_queue_exposed_s(params, chunk_forward_s,
                                                                          first_window_s, stages)
                                                  : total;
    out.param_exposed_s = with_overlap_cost(*in.gpu, total, exposed);
  }
  return out;
}

double fsdp_unit_comm_s(const GpuSpec& gpu, const Strategy& s, double gradient_bytes,
                        double gather_bytes, int64_t data_parallel_cp, double parameters,
                        double expert_parameters, double forward_s, double backward_s) {
  if (data_parallel_cp <= 1 || parameters + expert_parameters <= 0 || s.zero_stage < 2) return 0;
  // Experts shard over the expert-data-parallel group (mcore_fsdp_adapter.py _init_dist_index:
  // expt_device_mesh over get_expert_data_parallel_group()), the rest over data x context.
  const Group dp = data_parallel_group(gpu, s, data_parallel_cp);
  const Group edp = expert_data_parallel_group(gpu, s, data_parallel_cp);
  const auto both = [&](auto collective, double bytes_per_parameter) {
    return collective(gpu, dp, bytes_per_parameter * parameters) +
           collective(gpu, edp, bytes_per_parameter * expert_parameters);
  };
  const double scatter = both(reduce_scatter_s, gradient_bytes);
  if (s.zero_stage == 2) return exposed_s(gpu, scatter, backward_s);
  const double gather = both(all_gather_s, gather_bytes);
  return exposed_s(gpu, gather, forward_s) + exposed_s(gpu, gather + scatter, backward_s);
}

}  // namespace paraplan::detail
