"""The robot's collision model: link geometry, conservative sphere covers for the compiled
costs, allowed self-collision pairs, the proof a fine cover gives that a configuration is
clear, and exact checks against a scene with coal."""

from bioik.collision.acm import AllowedCollisions, allowed_collisions
from bioik.collision.cover_proof import CoverProof, proof_cover
from bioik.collision.guard import SelfCollisionWarning
from bioik.collision.sphere_pairs import SpherePairs, sphere_pairs
from bioik.collision.spheres import SphereModel, sphere_model


def __getattr__(name: str):
    # the exact checker needs coal (pip install bioik[collision]); import it on first use
    if name in ("CollisionChecker", "Contact"):
        from bioik.collision import checker

        return getattr(checker, name)
    raise AttributeError(f"module 'bioik.collision' has no attribute {name!r}")


__all__ = ["AllowedCollisions", "CollisionChecker", "Contact", "CoverProof", "SelfCollisionWarning", "SphereModel", "SpherePairs",
           "allowed_collisions", "proof_cover", "sphere_model", "sphere_pairs"]
