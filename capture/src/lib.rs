//! Launch records, replay and exporters (see DESIGN.md).
