//===- Clusters.h - Grids of whole clusters ----------------------*- C++
//-*-===//
//
// A kernel in clusters (`@kernel(cluster_dims=...)`) takes grids of whole
// clusters only; the runtime's launch and the interpreter refuse others
// with the same message. Plain C++, header-only.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_SUPPORT_CLUSTERS_H
#define KITE_SUPPORT_CLUSTERS_H

#include <cstdint>
#include <string>
#include <string_view>

namespace kite {

/// Empty when `grid` is a whole number of `cluster`s of kernel `kernel`,
/// else why not.
inline std::string clusterGridError(const uint32_t grid[3],
                                    const uint32_t cluster[3],
                                    std::string_view kernel) {
  if (grid[0] % cluster[0] == 0 && grid[1] % cluster[1] == 0 &&
      grid[2] % cluster[2] == 0)
    return {};
  auto triple = [](const uint32_t v[3]) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
           std::to_string(v[2]) + ")";
  };
  return "grid " + triple(grid) + " is not a multiple of the clusters " +
         triple(cluster) + " of kernel '" + std::string(kernel) +
         "' (@kernel(cluster_dims=...))";
}

} // namespace kite

#endif // KITE_SUPPORT_CLUSTERS_H
