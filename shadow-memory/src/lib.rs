//! Shadow memory and checkers (see DESIGN.md, "The race detector").
