//! A parameter's evaluated value (number, boolean or string) and its text form.

use serde::Serialize;

/// An evaluated parameter value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Num(f64),
    Bool(bool),
    Str(String),
}

impl Value {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            Value::Bool(_) => None,
            Value::Str(s) => s.trim().parse().ok().filter(|v: &f64| v.is_finite()),
        }
    }
    pub fn as_string(&self) -> String {
        match self {
            Value::Num(n) => fmt_num(*n),
            Value::Bool(b) => b.to_string(),
            Value::Str(s) => s.clone(),
        }
    }
}

/// A number as OpenSCENARIO text (integers without a fraction).
pub fn fmt_num(n: f64) -> String {
    if n == n.trunc() && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}
