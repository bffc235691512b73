// Collectives as NCCL runs them: its latency model, bandwidth at the per-step chunk, tree
// all-reduce where it wins, and groups placed in NVLink domains.
#include "model/collectives.hpp"

#include <doctest/doctest.h>

#include <array>
#include <nlohmann/json.hpp>

#include "model/collective_memo.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/scenario.hpp"

using namespace paraplan;
using namespace paraplan::detail;

namespace {

GpuSpec a100() { return parse_gpu(nlohmann::json("a100"), "gpu"); }

}  // namespace

TEST_CASE("ring latency is NCCL's: base plus a step per rank, network steps where nodes meet") {
  const GpuSpec gpu = a100();  // 3.4 us per NVLink step, 14 us per network step
  // 8 GPUs of one node: 8.4 + 7 x 3.4 us.
  CHECK(nccl_ring_latency_s(gpu, Collective::all_gather, 8, 1) == doctest::Approx(32.2e-6));
  // 16 GPUs on 2 nodes: 14 intra-node steps and 1 network step.
  CHECK(nccl_ring_latency_s(gpu, Collective::reduce_scatter, 16, 2) == doctest::Approx(70e-6));
  // All-reduce: twice the steps, 2 (nodes - 1) of them on the network.
  CHECK(nccl_ring_latency_s(gpu, Collective::all_reduce, 16, 2) ==
        doctest::Approx(8.4e-6 + 28 * 3.4e-6 + 2 * 14e-6));
  // Tree: 2 ((8 - 1) x 3.4 + log2(4) x 14) us on 4 nodes of 8.
  CHECK(nccl_tree_latency_s(gpu, 32, 4) == doctest::Approx(8.4e-6 + 2 * (7 * 3.4e-6 + 2 * 14e-6)));
}

TEST_CASE("an all-reduce of one scalar costs NCCL's LL latency, ring or tree, whichever is less") {
  // tuning.cc: Ring LL 6.6 us + 0.6 us a NVLink step; Tree LL 6.8 us + 2 x 0.6 us a chain step.
  CHECK(scalar_all_reduce_s(place_group(2, 1, 8)) == doctest::Approx(6.6e-6 + 2 * 0.6e-6));
  CHECK(scalar_all_reduce_s(place_group(8, 1, 8)) == doctest::Approx(6.6e-6 + 14 * 0.6e-6));
  // 64 GPUs on 8 nodes: the ring's 14 network steps (2.7 us) and 112 others (1 us each) lose to
  // the tree's chains of 7 and its 3 levels of 5 us.
  CHECK(scalar_all_reduce_s(place_group(64, 1, 8)) ==
        doctest::Approx(6.8e-6 + 2 * (7 * 0.6e-6 + 3 * 5.0e-6)));
  CHECK(scalar_all_reduce_s(place_group(1, 1, 8)) == 0);
}

TEST_CASE("groups are placed by NVLink domain and span nodes over the rails") {
  const Group tp = place_group(8, 1, 8);
  CHECK_FALSE(tp.spans_nodes);
  CHECK(tp.nodes() == 1);
  const Group dp = place_group(192, 8, 8);  // one member per node: rail-aligned
  CHECK(dp.spans_nodes);
  CHECK(dp.members_per_node == 1);
  CHECK(dp.nodes() == 192);
  const Group fsdp = place_group(1536, 1, 8);
  CHECK(fsdp.members_per_node == 8);
  CHECK(fsdp.nodes() == 192);
  CHECK_FALSE(place_group(64, 1, 72).spans_nodes);  // GB200 NVL72
}

TEST_CASE("inside one node a ring reads the curve at its own buffer, without extra latency") {
  const GpuSpec gpu = a100();
  const double bytes = 64e6;
  const double expected =
      7.0 / 8.0 * bytes /
      (gpu.intra_node.bandwidth_bytes_per_s * gpu.intra_node.efficiency.at(bytes));
  CHECK(all_gather_s(gpu, place_group(8, 1, 8), bytes) == doctest::Approx(expected));
  // Two GPUs move half the buffer per step: the curve is read at 4x the buffer.
  const double two =
      0.5 * bytes /
      (gpu.intra_node.bandwidth_bytes_per_s * gpu.intra_node.efficiency.at(4 * bytes));
  CHECK(reduce_scatter_s(gpu, place_group(2, 1, 8), bytes) == doctest::Approx(two));
}

TEST_CASE("a collective's cost grows with the ring's length at a fixed buffer") {
  const GpuSpec gpu = a100();
  const double bytes = 3.6e9;  // a GPT-3 layer's weights in bf16
  const double at_384 = all_gather_s(gpu, place_group(384, 1, 8), bytes);
  const double at_1536 = all_gather_s(gpu, place_group(1536, 1, 8), bytes);
  CHECK(at_1536 > at_384 * 1.2);
  // The growth is the extra ring steps plus the smaller per-step chunk.
  const double extra_latency = nccl_ring_latency_s(gpu, Collective::all_gather, 1536, 192) -
                               nccl_ring_latency_s(gpu, Collective::all_gather, 384, 48);
  CHECK(at_1536 - at_384 > extra_latency);
}

TEST_CASE("all-reduce takes NCCL's tree across many nodes when the ring's latency dominates") {
  const GpuSpec gpu = a100();
  const Group world = place_group(1536, 1, 8);
  const double small = 1e6;
  const double ring_latency = nccl_ring_latency_s(gpu, Collective::all_reduce, 1536, 192);
  CHECK(all_reduce_s(gpu, world, small) < 0.1 * ring_latency);
  CHECK(all_reduce_s(gpu, world, small) >
        nccl_tree_latency_s(gpu, 1536, 192) -
            nccl_ring_latency_s(gpu, Collective::all_reduce, 16, 2));
  // A large buffer on two nodes stays on the ring (more bandwidth than the tree).
  const Group two_nodes = place_group(16, 1, 8);
  const double large = 1e9;
  CHECK(all_reduce_s(gpu, two_nodes, large) ==
        doctest::Approx(2 * reduce_scatter_s(gpu, two_nodes, large)).epsilon(0.01));
}

TEST_CASE("a group that spans nodes runs at its members' NICs, capped by NVLink") {
  const GpuSpec gpu = a100();
  const double bytes = 1e9;
  const double rail = reduce_scatter_s(gpu, place_group(16, 8, 8), bytes);  // 1 NIC per node
  const double full = reduce_scatter_s(gpu, place_group(16, 1, 8), bytes);  // 8 NICs per node
  CHECK(rail > 6 * full);
}

TEST_CASE("all-to-all and point-to-point read the curves as a ring step of their chunk's size") {
  const GpuSpec gpu = a100();
  const Group node = place_group(8, 1, 8);
  const double buffer = 64e6;
  // Inside one node a ring all-gather of `buffer` moves chunks of buffer / 8, seven per GPU; an
  // all-to-all of `buffer` per GPU sends the same seven chunks, so only the start-up differs
  // (log2 8 NVLink steps).
  CHECK(all_to_all_s(gpu, node, buffer) - 3 * gpu.intra_node.latency_s ==
        doctest::Approx(all_gather_s(gpu, node, buffer)));
  // One message of buffer / 8 is one of those steps.
  CHECK(p2p_s(gpu, false, buffer / 8) - gpu.intra_node.latency_s ==
        doctest::Approx(all_gather_s(gpu, node, buffer) / 7));
}

TEST_CASE("a search's collective memo returns each GPU's own times, bit for bit") {
  Cluster cluster;
  cluster.gpus_per_node = 8;
  cluster.pools = {{a100(), 8}, {parse_gpu(nlohmann::json("h100"), "gpu"), 8}};
  const GpuSpec a100_copy = cluster.pools[0].gpu, h100_copy = cluster.pools[1].gpu;
  const Group groups[] = {place_group(8, 1, 8), place_group(64, 8, 8), place_group(16, 1, 8)};
  const auto times = [&](const GpuSpec& gpu, const Group& group, double bytes) {
    return std::array<double, 5>{all_gather_s(gpu, group, bytes),
                                 reduce_scatter_s(gpu, group, bytes),
                                 all_reduce_s(gpu, group, bytes), all_to_all_s(gpu, group, bytes),
                                 p2p_s(gpu, group.spans_nodes, bytes)};
  };
  const CollectiveMemoScope memo(cluster);
  for (int round = 0; round < 2; ++round) {  // the second round reads the memo
    for (const Group& group : groups) {
      for (const double bytes : {1e3, 3e6, 7.5e8}) {
        const auto a = times(cluster.pools[0].gpu, group, bytes);
        const auto h = times(cluster.pools[1].gpu, group, bytes);
        CHECK(a == times(a100_copy, group, bytes));  // a GPU outside the cluster: computed
        CHECK(h == times(h100_copy, group, bytes));
        CHECK(a != h);        // the same key on another GPU type is another time
        CHECK(a[2] != a[0]);  // and another collective on the same one
      }
    }
  }
}
