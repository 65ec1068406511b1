//! JSON report
