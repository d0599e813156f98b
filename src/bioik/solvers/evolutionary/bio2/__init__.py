"""BioIK 2: the memetic evolutionary solver of [R 3.7], [E Alg. 3.4, Table 7.1], and `bio2_lm`.

A step of an island runs, for each species, (1) exact FK at its best individual and the
acceptance test, (2) evolution on the FK model extrapolated from there, (3) memetic local
search on the best individuals, then wipes out stuck species. Ablation switches
(`per_gene_mutation`, `wipeouts`, `random_init`, `rotation_distance`; `momentum_mix` 0 for
no particle swarm) turn single components off, as [R Tables 3.8–3.14] did (`search`'s doc).
By concern:

  * `model` — the step's extrapolated FK model and the scoring of candidates on it;
  * `evolution` — step 2: mutation, scoring and selection of children (`evolve`);
  * `memetics` — step 3: the quadratic and linear line searches of `bio2_memetic` and
    `bio2_memetic_l`, and `bio2_lm`'s LM attempt;
  * `search` — the settings, the step loop (steps 1 and 4, islands — on threads of their
    own with `threads` > 1) and the registry entries (`FAMILIES`).
"""

from bioik.solvers.evolutionary.bio2.evolution import (
    ChildPool,
    Species,
    add_children_costs,
    candidate_cost,
    child_factors,
    draw_mutation_rates,
    draw_rates,
    evolve,
    merge_ranked,
    pool_scratch,
    rank_candidates,
    reproduce,
    score_pose_children,
    select,
    winner_momenta,
)
from bioik.solvers.evolutionary.bio2.memetics import (
    LINEAR,
    LM,
    NONE,
    QUADRATIC,
    LineScratch,
    lane_gradient,
    line_search,
    line_search_single,
    lm_memetic,
    memetic_step,
    single_offsets,
)
from bioik.solvers.evolutionary.bio2.model import (
    MODEL,
    NORM_DOT,
    SQUARE_ANGLE,
    SQUARE_QUATERNION,
    Expansion,
    GoalScratch,
    full_score,
    goal_model,
    goal_models,
    model_cost,
    offsets,
    pose_score,
    predicted_rotation,
    rotation_distance,
    score,
    square_quaternion_model,
)
from bioik.solvers.evolutionary.bio2.search import (
    DEFAULTS,
    FAMILIES,
    LM_DEFAULTS,
    NORMALS,
    SETTING,
    Population,
    Work,
    bio2_pose_query,
    bio2_search,
    bio2_steps,
    bio2_threads_search,
    goal_flags,
    initial_genes,
    island_search,
    normal_table,
    step_scratch,
)

__all__ = [
    "DEFAULTS", "ChildPool", "Expansion", "GoalScratch", "LineScratch", "Population", "Species", "Work", "FAMILIES", "LINEAR", "LM", "LM_DEFAULTS", "MODEL", "NONE", "NORM_DOT", "NORMALS", "QUADRATIC", "SETTING", "SQUARE_ANGLE", "SQUARE_QUATERNION",
    "add_children_costs", "bio2_pose_query", "bio2_search", "bio2_steps", "bio2_threads_search", "candidate_cost", "child_factors", "draw_mutation_rates", "draw_rates", "evolve", "full_score",
    "goal_flags", "goal_model", "goal_models", "initial_genes", "island_search", "lane_gradient", "line_search", "line_search_single", "lm_memetic", "memetic_step",
    "merge_ranked", "model_cost", "normal_table", "offsets", "pool_scratch", "pose_score", "predicted_rotation",
    "rank_candidates", "rotation_distance", "reproduce", "score", "score_pose_children", "select", "single_offsets", "square_quaternion_model", "step_scratch",
    "winner_momenta",
]
