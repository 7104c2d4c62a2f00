#ifndef ICOUNT_SLURM_VERSION_H_
#define ICOUNT_SLURM_VERSION_H_

namespace icount::slurm {

// The semantic version of //slurm: the executor, its shard task files and
// the layout of a run's shared directory.
inline constexpr char kSlurmVersion[] = "0.3.0";

}  // namespace icount::slurm

#endif  // ICOUNT_SLURM_VERSION_H_
