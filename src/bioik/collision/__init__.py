"""The robot's collision model: link geometry, conservative sphere covers for the compiled
costs, allowed self-collision pairs, and exact checks against a scene with coal."""
