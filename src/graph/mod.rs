//! The task-graph engine (DESIGN.md section 7): dependencies, complexity, composition, orders, coherence.
