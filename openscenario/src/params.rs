//! Parameter values, declarations with value constraints, and the evaluation of attribute
//! values (`literal`, `$name`, `${expression}`).

use std::collections::BTreeMap;

pub use crate::value::{fmt_num, Value};
use crate::xml::Node;
use crate::Error;

/// The parameters visible in one place (the scenario's, or a catalog entry's).
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub values: BTreeMap<String, Value>,
}

impl Scope {
    /// Evaluates an attribute value: `$name`, `${expression}` or a literal.
    pub fn eval(&self, raw: &str) -> Result<Value, String> {
        let t = raw.trim();
        if let Some(inner) = t.strip_prefix("${") {
            let inner = inner
                .strip_suffix('}')
                .ok_or_else(|| format!("expression '{raw}' lacks its closing '}}'"))?;
            let look = |n: &str| self.values.get(n).cloned();
            return crate::expr::eval(inner, &look);
        }
        if let Some(name) = t.strip_prefix('$') {
            return self
                .values
                .get(name)
                .cloned()
                .ok_or_else(|| format!("unknown parameter '{name}'"));
        }
        Ok(Value::Str(raw.to_string()))
    }

    /// Reads `<ParameterDeclarations>` in order (a declaration may use the ones before it);
    /// `overrides` (parameter name → literal value) replace the declared values before the
    /// later declarations are evaluated. Constraints are checked on the final values.
    pub fn declare(
        &mut self,
        decls: Option<&Node>,
        overrides: &BTreeMap<String, String>,
        used: &mut Vec<String>,
    ) -> Result<(), Error> {
        let Some(decls) = decls else { return Ok(()) };
        decls.check(&[], &["ParameterDeclaration"])?;
        for d in &decls.children {
            d.check(&["name", "parameterType", "value"], &["ConstraintGroup"])?;
            let name = d
                .attr("name")
                .ok_or_else(|| d.err("missing attribute 'name'"))?
                .to_string();
            let ty = d.attr("parameterType").unwrap_or("string");
            let value = match overrides.get(&name) {
                Some(v) => {
                    used.push(name.clone());
                    Value::Str(v.clone())
                }
                None => {
                    let raw = d
                        .attr("value")
                        .ok_or_else(|| d.err("missing attribute 'value'"))?;
                    self.eval(raw)
                        .map_err(|e| d.err(format!("parameter '{name}': {e}")))?
                }
            };
            let value = typed(ty, value).map_err(|e| d.err(format!("parameter '{name}': {e}")))?;
            check_constraints(d, &name, &value)?;
            self.values.insert(name, value);
        }
        Ok(())
    }
}

/// Converts a value to the declared parameter type.
pub fn typed(ty: &str, v: Value) -> Result<Value, String> {
    match ty {
        "double" | "int" | "unsignedInt" | "unsignedShort" => {
            let n = v
                .as_f64()
                .ok_or_else(|| format!("'{}' is not a number ({ty})", v.as_string()))?;
            if ty != "double" && n != n.trunc() {
                return Err(format!("{n} is not an integer ({ty})"));
            }
            if ty.starts_with("unsigned") && n < 0.0 {
                return Err(format!("{n} is negative ({ty})"));
            }
            Ok(Value::Num(n))
        }
        "boolean" => match v {
            Value::Bool(b) => Ok(Value::Bool(b)),
            other => match other.as_string().as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                s => Err(format!("'{s}' is not a boolean")),
            },
        },
        "string" | "dateTime" => Ok(Value::Str(v.as_string())),
        other => Err(format!("unknown parameterType '{other}'")),
    }
}

/// `<ConstraintGroup>`s: the value must satisfy every constraint of at least one group.
fn check_constraints(d: &Node, name: &str, v: &Value) -> Result<(), Error> {
    let groups: Vec<&Node> = d.children_named("ConstraintGroup").collect();
    if groups.is_empty() {
        return Ok(());
    }
    let mut failed = Vec::new();
    for g in &groups {
        g.check(&[], &["ValueConstraint"])?;
        let mut ok = true;
        for c in &g.children {
            c.check(&["rule", "value"], &[])?;
            let rule = c
                .attr("rule")
                .ok_or_else(|| c.err("missing attribute 'rule'"))?;
            let want = c
                .attr("value")
                .ok_or_else(|| c.err("missing attribute 'value'"))?;
            let pass = match (v.as_f64(), want.trim().parse::<f64>()) {
                (Some(a), Ok(b)) => match rule {
                    "equalTo" => a == b,
                    "notEqualTo" => a != b,
                    "greaterThan" => a > b,
                    "lessThan" => a < b,
                    "greaterOrEqual" => a >= b,
                    "lessOrEqual" => a <= b,
                    r => return Err(c.err(format!("unknown rule '{r}'"))),
                },
                _ => match rule {
                    "equalTo" => v.as_string() == want,
                    "notEqualTo" => v.as_string() != want,
                    r => return Err(c.err(format!("rule '{r}' needs numbers"))),
                },
            };
            if !pass {
                ok = false;
                failed.push(format!("{rule} {want}"));
            }
        }
        if ok {
            return Ok(());
        }
    }
    Err(d.err(format!(
        "parameter '{name}' = {} violates its constraints ({})",
        v.as_string(),
        failed.join(" / ")
    )))
}
