//! OpenSCENARIO parameter expressions: `$name` references and `${…}` expressions with the
//! operators `+ - * / %`, unary minus, parentheses, `pi`, the functions `round floor ceil sqrt
//! pow sin cos tan asin acos atan sign abs min max`, and `not`/`and`/`or` with `true`/`false`.

use crate::value::Value;

/// Evaluates the inside of `${…}`; `lookup` resolves `$name`.
pub fn eval(src: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, String> {
    let toks = lex(src)?;
    let mut p = Parser { toks, i: 0, lookup };
    let v = p.or()?;
    if p.i != p.toks.len() {
        return Err(format!(
            "unexpected '{}' in expression '{src}'",
            p.toks[p.i]
        ));
    }
    Ok(v)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Param(String),
    Ident(String),
    Op(char),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Param(p) => write!(f, "${p}"),
            Tok::Ident(i) => write!(f, "{i}"),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch.is_ascii_digit()
            || (ch == '.' && c.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let s = i;
            while i < c.len() && (c[i].is_ascii_digit() || c[i] == '.') {
                i += 1;
            }
            if i < c.len() && (c[i] == 'e' || c[i] == 'E') {
                let mut j = i + 1;
                if j < c.len() && (c[j] == '+' || c[j] == '-') {
                    j += 1;
                }
                if j < c.len() && c[j].is_ascii_digit() {
                    i = j;
                    while i < c.len() && c[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = c[s..i].iter().collect();
            out.push(Tok::Num(text.parse().map_err(|_| {
                format!("bad number '{text}' in expression '{src}'")
            })?));
        } else if ch == '$' || ch.is_alphabetic() || ch == '_' {
            let param = ch == '$';
            if param {
                i += 1;
            }
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let name: String = c[s..i].iter().collect();
            if name.is_empty() {
                return Err(format!(
                    "'$' without a parameter name in expression '{src}'"
                ));
            }
            out.push(if param {
                Tok::Param(name)
            } else {
                Tok::Ident(name)
            });
        } else if "+-*/%(),".contains(ch) {
            out.push(Tok::Op(ch));
            i += 1;
        } else {
            return Err(format!("unexpected character '{ch}' in expression '{src}'"));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    i: usize,
    lookup: &'a dyn Fn(&str) -> Option<Value>,
}

impl Parser<'_> {
    fn peek_op(&self, op: char) -> bool {
        self.toks.get(self.i) == Some(&Tok::Op(op))
    }
    fn peek_ident(&self, id: &str) -> bool {
        matches!(self.toks.get(self.i), Some(Tok::Ident(s)) if s == id)
    }
    fn or(&mut self) -> Result<Value, String> {
        let mut v = self.and()?;
        while self.peek_ident("or") {
            self.i += 1;
            let r = self.and()?;
            v = Value::Bool(truth(&v)? || truth(&r)?);
        }
        Ok(v)
    }
    fn and(&mut self) -> Result<Value, String> {
        let mut v = self.sum()?;
        while self.peek_ident("and") {
            self.i += 1;
            let r = self.sum()?;
            v = Value::Bool(truth(&v)? && truth(&r)?);
        }
        Ok(v)
    }
    fn sum(&mut self) -> Result<Value, String> {
        let mut v = num(&self.term()?)?;
        loop {
            if self.peek_op('+') {
                self.i += 1;
                v += num(&self.term()?)?;
            } else if self.peek_op('-') {
                self.i += 1;
                v -= num(&self.term()?)?;
            } else {
                return Ok(Value::Num(v));
            }
        }
    }
    fn term(&mut self) -> Result<Value, String> {
        let first = self.unary()?;
        if !(self.peek_op('*') || self.peek_op('/') || self.peek_op('%')) {
            return Ok(first);
        }
        let mut v = num(&first)?;
        loop {
            let op = match self.toks.get(self.i) {
                Some(Tok::Op(c)) if "*/%".contains(*c) => *c,
                _ => return Ok(Value::Num(v)),
            };
            self.i += 1;
            let r = num(&self.unary()?)?;
            v = match op {
                '*' => v * r,
                '/' => {
                    if r == 0.0 {
                        return Err("division by zero".into());
                    }
                    v / r
                }
                _ => v % r,
            };
        }
    }
    fn unary(&mut self) -> Result<Value, String> {
        if self.peek_op('-') {
            self.i += 1;
            return Ok(Value::Num(-num(&self.unary()?)?));
        }
        if self.peek_op('+') {
            self.i += 1;
            return self.unary();
        }
        if self.peek_ident("not") {
            self.i += 1;
            return Ok(Value::Bool(!truth(&self.unary()?)?));
        }
        self.atom()
    }
    fn atom(&mut self) -> Result<Value, String> {
        let t = self
            .toks
            .get(self.i)
            .cloned()
            .ok_or("expression ends too early")?;
        self.i += 1;
        match t {
            Tok::Num(n) => Ok(Value::Num(n)),
            Tok::Param(p) => (self.lookup)(&p).ok_or_else(|| format!("unknown parameter '{p}'")),
            Tok::Op('(') => {
                let v = self.or()?;
                self.expect(')')?;
                Ok(v)
            }
            Tok::Ident(id) => match id.as_str() {
                "pi" => Ok(Value::Num(std::f64::consts::PI)),
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                f => {
                    self.expect('(')?;
                    let mut args = vec![num(&self.or()?)?];
                    while self.peek_op(',') {
                        self.i += 1;
                        args.push(num(&self.or()?)?);
                    }
                    self.expect(')')?;
                    call(f, &args).map(Value::Num)
                }
            },
            Tok::Op(c) => Err(format!("unexpected '{c}'")),
        }
    }
    fn expect(&mut self, op: char) -> Result<(), String> {
        if self.peek_op(op) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected '{op}'"))
        }
    }
}

fn call(f: &str, a: &[f64]) -> Result<f64, String> {
    let one = |g: fn(f64) -> f64| -> Result<f64, String> {
        match a {
            [x] => Ok(g(*x)),
            _ => Err(format!("{f}() takes one argument, got {}", a.len())),
        }
    };
    let two = |g: fn(f64, f64) -> f64| -> Result<f64, String> {
        match a {
            [x, y] => Ok(g(*x, *y)),
            _ => Err(format!("{f}() takes two arguments, got {}", a.len())),
        }
    };
    let v = match f {
        "round" => one(f64::round)?,
        "floor" => one(f64::floor)?,
        "ceil" => one(f64::ceil)?,
        "sqrt" => one(f64::sqrt)?,
        "sin" => one(f64::sin)?,
        "cos" => one(f64::cos)?,
        "tan" => one(f64::tan)?,
        "asin" => one(f64::asin)?,
        "acos" => one(f64::acos)?,
        "atan" => one(f64::atan)?,
        "abs" => one(f64::abs)?,
        "sign" => one(|x| if x == 0.0 { 0.0 } else { x.signum() })?,
        "pow" => two(f64::powf)?,
        "min" => two(f64::min)?,
        "max" => two(f64::max)?,
        _ => return Err(format!("unknown function '{f}'")),
    };
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{f}({}) is not a finite number", join(a)))
    }
}

fn join(a: &[f64]) -> String {
    a.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn num(v: &Value) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("'{}' is not a number", v.as_string()))
}

fn truth(v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Num(n) => Ok(*n != 0.0),
        Value::Str(s) => match s.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("'{s}' is not a boolean")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> f64 {
        let look = |n: &str| match n {
            "a" => Some(Value::Num(2.0)),
            "b_1" => Some(Value::Num(3.0)),
            _ => None,
        };
        eval(s, &look).unwrap().as_f64().unwrap()
    }

    #[test]
    fn arithmetic_and_functions() {
        assert_eq!(ev("1+2*3"), 7.0);
        assert_eq!(ev("(1+2)*3"), 9.0);
        assert_eq!(ev("-$a*$b_1"), -6.0);
        assert_eq!(ev("2--1"), 3.0);
        assert_eq!(ev("0.6/2-0.36"), 0.6 / 2.0 - 0.36);
        assert_eq!(ev("pow($a, 3)"), 8.0);
        assert_eq!(
            ev("sqrt(16)+abs(-1)+floor(1.5)+ceil(1.2)+round(2.5)"),
            4.0 + 1.0 + 1.0 + 2.0 + 3.0
        );
        assert!((ev("cos(pi)") + 1.0).abs() < 1e-12);
        assert!((ev("acos(0)") - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        assert!((ev("atan(1)*4") - std::f64::consts::PI).abs() < 1e-12);
        assert_eq!(ev("7 % 4"), 3.0);
        assert_eq!(ev("1e2/4"), 25.0);
        let none = |_: &str| None;
        assert!(eval("$zz+1", &none).unwrap_err().contains("zz"));
        assert!(eval("1/0", &none).is_err());
        assert!(eval("sqrt(-1)", &none).is_err());
        assert!(eval("1+", &none).is_err());
        assert!(eval("foo(1)", &none).unwrap_err().contains("foo"));
    }
}
