//! A small backtracking regex engine with the semantics of C++'s `std::regex` (ECMAScript
//! grammar), which llama.cpp runs for the pre-tokenizer patterns it has no hand-written splitter
//! for. It matches over units: bytes of llama.cpp's "collapsed" text (one byte per code point,
//! with a stand-in byte per Unicode category) or code points, as llama.cpp does.
//!
//! What the patterns use is supported: alternation, groups `(…)` `(?:…)`, lookahead `(?=…)`
//! `(?!…)`, classes with ranges and negation, `\s \S \d \D \w \W \b \B`, `^ $ .`, and greedy or
//! lazy `* + ? {n} {n,} {n,m}`. The classes `\s \d \w` are ASCII, as in the C locale.
//! A match is the first one backtracking finds, leftmost first: ECMAScript's rule.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

/// A pattern the engine cannot read, with the unit index where reading stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SyntaxError(pub(crate) usize);

#[derive(Debug, Clone)]
enum ClassItem {
    Range(u32, u32),
    Space(bool),
    Digit(bool),
    Word(bool),
}

#[derive(Debug, Clone)]
struct Class {
    negated: bool,
    items: Vec<ClassItem>,
}

fn is_space(u: u32) -> bool {
    matches!(u, 0x09..=0x0D | 0x20)
}
fn is_digit(u: u32) -> bool {
    matches!(u, 0x30..=0x39)
}
fn is_word(u: u32) -> bool {
    matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F)
}

impl Class {
    fn matches(&self, u: u32) -> bool {
        let hit = self.items.iter().any(|item| match *item {
            ClassItem::Range(lo, hi) => lo <= u && u <= hi,
            ClassItem::Space(want) => is_space(u) == want,
            ClassItem::Digit(want) => is_digit(u) == want,
            ClassItem::Word(want) => is_word(u) == want,
        });
        hit != self.negated
    }
}

#[derive(Debug, Clone)]
enum Node {
    Empty,
    Unit(u32),
    Class(Class),
    Any,
    Start,
    End,
    WordBoundary(bool),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        greedy: bool,
    },
    Look {
        negated: bool,
        node: Box<Node>,
    },
}

impl Node {
    fn nullable(&self) -> bool {
        match self {
            Node::Unit(_) | Node::Class(_) | Node::Any => false,
            Node::Empty | Node::Start | Node::End | Node::WordBoundary(_) | Node::Look { .. } => true,
            Node::Concat(nodes) => nodes.iter().all(Node::nullable),
            Node::Alt(nodes) => nodes.iter().any(Node::nullable),
            Node::Repeat { node, min, .. } => *min == 0 || node.nullable(),
        }
    }
}

struct Parser<'a> {
    pat: &'a [u32],
    at: usize,
}

const fn u(c: char) -> u32 {
    c as u32
}

impl Parser<'_> {
    fn peek(&self) -> Option<u32> {
        self.pat.get(self.at).copied()
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(u(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn next(&mut self) -> Result<u32, SyntaxError> {
        let c = self.peek().ok_or(SyntaxError(self.at))?;
        self.at += 1;
        Ok(c)
    }

    fn alternation(&mut self) -> Result<Node, SyntaxError> {
        let mut alts = vec![self.sequence()?];
        while self.eat('|') {
            alts.push(self.sequence()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().unwrap()
        } else {
            Node::Alt(alts)
        })
    }

    fn sequence(&mut self) -> Result<Node, SyntaxError> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == u('|') || c == u(')') {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap(),
            _ => Node::Concat(items),
        })
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().filter(|&d| is_digit(d)) {
            n = n.saturating_mul(10).saturating_add(d - u('0'));
            self.at += 1;
        }
        (self.at > start).then_some(n)
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, SyntaxError> {
        let (min, max) = match self.peek() {
            Some(c) if c == u('*') => (0, None),
            Some(c) if c == u('+') => (1, None),
            Some(c) if c == u('?') => (0, Some(1)),
            Some(c) if c == u('{') => {
                let save = self.at;
                self.at += 1;
                let Some(min) = self.number() else {
                    self.at = save;
                    return Ok(atom);
                };
                let max = if self.eat(',') { self.number() } else { Some(min) };
                if !self.eat('}') || max.is_some_and(|m| m < min) {
                    return Err(SyntaxError(self.at));
                }
                self.at -= 1;
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.at += 1;
        let greedy = !self.eat('?');
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
            greedy,
        })
    }

    fn atom(&mut self) -> Result<Node, SyntaxError> {
        let c = self.next()?;
        Ok(match char::from_u32(c).unwrap_or('\0') {
            '(' => {
                let node = if self.eat('?') {
                    if self.eat(':') {
                        self.alternation()?
                    } else if self.eat('=') {
                        Node::Look {
                            negated: false,
                            node: Box::new(self.alternation()?),
                        }
                    } else if self.eat('!') {
                        Node::Look {
                            negated: true,
                            node: Box::new(self.alternation()?),
                        }
                    } else {
                        return Err(SyntaxError(self.at));
                    }
                } else {
                    self.alternation()?
                };
                if !self.eat(')') {
                    return Err(SyntaxError(self.at));
                }
                node
            }
            '[' => Node::Class(self.class()?),
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '\\' => match self.escape()? {
                Escape::Unit(c) => Node::Unit(c),
                Escape::Item(item) => Node::Class(Class {
                    negated: false,
                    items: vec![item],
                }),
                Escape::WordBoundary(b) => Node::WordBoundary(b),
            },
            ')' | '*' | '+' | '?' => return Err(SyntaxError(self.at - 1)),
            _ => Node::Unit(c),
        })
    }

    fn hex(&mut self, digits: usize) -> Result<u32, SyntaxError> {
        let mut v = 0;
        for _ in 0..digits {
            let d = char::from_u32(self.next()?).and_then(|c| c.to_digit(16));
            v = v * 16 + d.ok_or(SyntaxError(self.at - 1))?;
        }
        Ok(v)
    }

    fn escape(&mut self) -> Result<Escape, SyntaxError> {
        let c = self.next()?;
        Ok(match char::from_u32(c).unwrap_or('\0') {
            'd' => Escape::Item(ClassItem::Digit(true)),
            'D' => Escape::Item(ClassItem::Digit(false)),
            's' => Escape::Item(ClassItem::Space(true)),
            'S' => Escape::Item(ClassItem::Space(false)),
            'w' => Escape::Item(ClassItem::Word(true)),
            'W' => Escape::Item(ClassItem::Word(false)),
            'b' => Escape::WordBoundary(true),
            'B' => Escape::WordBoundary(false),
            'n' => Escape::Unit(0x0A),
            'r' => Escape::Unit(0x0D),
            't' => Escape::Unit(0x09),
            'f' => Escape::Unit(0x0C),
            'v' => Escape::Unit(0x0B),
            '0' => Escape::Unit(0),
            'x' => Escape::Unit(self.hex(2)?),
            'u' => Escape::Unit(self.hex(4)?),
            _ => Escape::Unit(c),
        })
    }

    fn class(&mut self) -> Result<Class, SyntaxError> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        loop {
            let c = self.next()?;
            if c == u(']') {
                break;
            }
            let lo = if c == u('\\') {
                match self.escape()? {
                    Escape::Unit(c) => c,
                    Escape::Item(item) => {
                        items.push(item);
                        continue;
                    }
                    // `\b` in a class is a backspace.
                    Escape::WordBoundary(_) => 0x08,
                }
            } else {
                c
            };
            let is_range = self.peek() == Some(u('-')) && self.pat.get(self.at + 1) != Some(&u(']'));
            if !is_range {
                items.push(ClassItem::Range(lo, lo));
                continue;
            }
            self.at += 1;
            let c = self.next()?;
            let hi = if c == u('\\') {
                match self.escape()? {
                    Escape::Unit(c) => c,
                    _ => return Err(SyntaxError(self.at)),
                }
            } else {
                c
            };
            if hi < lo {
                return Err(SyntaxError(self.at));
            }
            items.push(ClassItem::Range(lo, hi));
        }
        Ok(Class { negated, items })
    }
}

enum Escape {
    Unit(u32),
    Item(ClassItem),
    WordBoundary(bool),
}

#[derive(Debug, Clone, Copy)]
enum Inst {
    Unit(u32),
    Class(usize),
    Any,
    Start,
    End,
    WordBoundary(bool),
    /// Try the first target, then the second.
    Split(usize, usize),
    Jump(usize),
    /// A lookahead whose program starts at `body` and ends with `Match`; then go on at `next`.
    Look {
        negated: bool,
        body: usize,
        next: usize,
    },
    Match,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(crate) struct Regex {
    prog: Vec<Inst>,
    classes: Vec<Class>,
}

/// Patterns are small; this bounds what a counted repetition may expand to.
const MAX_PROGRAM: usize = 1 << 16;

struct Compiler {
    prog: Vec<Inst>,
    classes: Vec<Class>,
}

impl Compiler {
    fn emit(&mut self, inst: Inst) -> Result<usize, SyntaxError> {
        if self.prog.len() >= MAX_PROGRAM {
            return Err(SyntaxError(0));
        }
        self.prog.push(inst);
        Ok(self.prog.len() - 1)
    }

    fn split(&mut self, greedy: bool, here: usize, target: usize, other: usize) {
        self.prog[here] = if greedy {
            Inst::Split(target, other)
        } else {
            Inst::Split(other, target)
        };
    }

    fn node(&mut self, node: &Node) -> Result<(), SyntaxError> {
        match node {
            Node::Empty => {}
            Node::Unit(c) => {
                self.emit(Inst::Unit(*c))?;
            }
            Node::Class(class) => {
                self.classes.push(class.clone());
                self.emit(Inst::Class(self.classes.len() - 1))?;
            }
            Node::Any => {
                self.emit(Inst::Any)?;
            }
            Node::Start => {
                self.emit(Inst::Start)?;
            }
            Node::End => {
                self.emit(Inst::End)?;
            }
            Node::WordBoundary(b) => {
                self.emit(Inst::WordBoundary(*b))?;
            }
            Node::Concat(nodes) => {
                for n in nodes {
                    self.node(n)?;
                }
            }
            Node::Alt(alts) => {
                let mut jumps = Vec::new();
                for (i, alt) in alts.iter().enumerate() {
                    if i + 1 < alts.len() {
                        let split = self.emit(Inst::Match)?;
                        self.node(alt)?;
                        jumps.push(self.emit(Inst::Match)?);
                        let next = self.prog.len();
                        self.prog[split] = Inst::Split(split + 1, next);
                    } else {
                        self.node(alt)?;
                    }
                }
                let end = self.prog.len();
                for j in jumps {
                    self.prog[j] = Inst::Jump(end);
                }
            }
            Node::Repeat {
                node,
                min,
                max,
                greedy,
            } => {
                for _ in 0..*min {
                    self.node(node)?;
                }
                // A body that can match nothing is taken at most once more: ECMAScript stops a
                // loop at an empty iteration, and none of llama.cpp's patterns loops on one.
                let max = if node.nullable() {
                    max.map(|m| m.min(*min + 1)).or(Some(*min + 1))
                } else {
                    *max
                };
                match max {
                    None => {
                        let split = self.emit(Inst::Match)?;
                        self.node(node)?;
                        self.emit(Inst::Jump(split))?;
                        let end = self.prog.len();
                        self.split(*greedy, split, split + 1, end);
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..max {
                            splits.push(self.emit(Inst::Match)?);
                            self.node(node)?;
                        }
                        let end = self.prog.len();
                        for s in splits {
                            self.split(*greedy, s, s + 1, end);
                        }
                    }
                }
            }
            Node::Look { negated, node } => {
                let look = self.emit(Inst::Match)?;
                self.node(node)?;
                self.emit(Inst::Match)?;
                let next = self.prog.len();
                self.prog[look] = Inst::Look {
                    negated: *negated,
                    body: look + 1,
                    next,
                };
            }
        }
        Ok(())
    }
}

impl Regex {
    /// Compiles `pattern` (units: bytes or code points).
    pub(crate) fn new(pattern: &[u32]) -> Result<Regex, SyntaxError> {
        let mut parser = Parser { pat: pattern, at: 0 };
        let node = parser.alternation()?;
        if parser.at != pattern.len() {
            return Err(SyntaxError(parser.at));
        }
        let mut c = Compiler {
            prog: Vec::new(),
            classes: Vec::new(),
        };
        c.node(&node)?;
        c.emit(Inst::Match)?;
        Ok(Regex {
            prog: c.prog,
            classes: c.classes,
        })
    }

    /// Runs the program from `pc` at `pos` over `text` (the whole target); returns where the
    /// first match found ends. With `not_null`, an empty match does not count.
    fn run(
        &self,
        text: &[u32],
        pc: usize,
        pos: usize,
        not_null: bool,
        stack: &mut Vec<(usize, usize)>,
    ) -> Option<usize> {
        let base = stack.len();
        let (mut pc, mut at, start) = (pc, pos, pos);
        loop {
            let ok = match self.prog[pc] {
                Inst::Unit(c) => {
                    let hit = text.get(at) == Some(&c);
                    at += 1;
                    pc += 1;
                    hit
                }
                Inst::Class(i) => {
                    let hit = text.get(at).is_some_and(|&c| self.classes[i].matches(c));
                    at += 1;
                    pc += 1;
                    hit
                }
                Inst::Any => {
                    let hit = text.get(at).is_some_and(|&c| c != 0x0A && c != 0x0D);
                    at += 1;
                    pc += 1;
                    hit
                }
                Inst::Start => {
                    pc += 1;
                    at == 0
                }
                Inst::End => {
                    pc += 1;
                    at == text.len()
                }
                Inst::WordBoundary(want) => {
                    let before = at > 0 && is_word(text[at - 1]);
                    let after = text.get(at).is_some_and(|&c| is_word(c));
                    pc += 1;
                    (before != after) == want
                }
                Inst::Split(a, b) => {
                    stack.push((b, at));
                    pc = a;
                    true
                }
                Inst::Jump(t) => {
                    pc = t;
                    true
                }
                Inst::Look { negated, body, next } => {
                    let found = self.run(text, body, at, false, stack).is_some();
                    pc = next;
                    found != negated
                }
                Inst::Match => {
                    if !(not_null && at == start) {
                        stack.truncate(base);
                        return Some(at);
                    }
                    false
                }
            };
            if !ok {
                if stack.len() == base {
                    return None;
                }
                (pc, at) = stack.pop().unwrap();
            }
        }
    }

    /// The first match in `text[from..]` (the target is all of `text`: `^`, `$` and `\b` see
    /// its ends), as `(start, end)`. With `anchored`, only a non-empty match at `from`.
    fn search(
        &self,
        text: &[u32],
        from: usize,
        anchored: bool,
        stack: &mut Vec<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        if anchored {
            return self.run(text, 0, from, true, stack).map(|end| (from, end));
        }
        (from..=text.len()).find_map(|start| self.run(text, 0, start, false, stack).map(|end| (start, end)))
    }

    /// The matches `std::regex_iterator` visits over `text`, as `(start, end)`: after an empty
    /// match it first tries a non-empty one at the same place, then moves one unit on.
    pub(crate) fn matches(&self, text: &[u32], mut each: impl FnMut(usize, usize)) {
        let mut stack = Vec::new();
        let mut found = self.search(text, 0, false, &mut stack);
        while let Some((start, end)) = found {
            each(start, end);
            found = if start == end {
                if end == text.len() {
                    None
                } else {
                    self.search(text, end, true, &mut stack)
                        .or_else(|| self.search(text, end + 1, false, &mut stack))
                }
            } else {
                self.search(text, end, false, &mut stack)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    fn units(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    fn split(pattern: &str, text: &str) -> Vec<String> {
        let re = Regex::new(&units(pattern)).unwrap();
        let t: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        re.matches(&units(text), |s, e| out.push(t[s..e].iter().collect()));
        out
    }

    #[test]
    fn leftmost_first_alternation_and_lookahead() {
        assert_eq!(split(r"\s+(?!\S)|\s+", "a   b"), [" ".repeat(2), " ".into()]);
        assert_eq!(split(r"'s|'t| ?[a-z]+", "it's ok"), ["it", "'s", " ok"]);
        assert_eq!(split(r"\p{N}", "p{N}"), ["p{N}"]);
        assert_eq!(split("[0-9][0-9][0-9]", "12345678"), ["123", "456"]);
        assert_eq!(split(r"\s+$", "a  \n"), ["  \n"]);
        assert_eq!(split(r"x{1,2}", "xxxxx"), ["xx", "xx", "x"]);
    }

    #[test]
    fn empty_matches_advance_as_regex_iterator_does() {
        // The SuperBPE digit-group pattern: empty matches before each group of three.
        let re = Regex::new(&units(r"(?=(\d{3})+(?!\d))")).unwrap();
        let mut out = Vec::new();
        re.matches(&units("1234567"), |s, e| out.push((s, e)));
        assert_eq!(out, [(1, 1), (4, 4)]);
    }

    #[test]
    fn classes_and_escapes() {
        assert_eq!(split(r"[^\s\d]+", "ab 12cd"), ["ab", "cd"]);
        assert_eq!(split(r"[\[-\]]+", "a[\\]b"), ["[\\]"]);
        assert_eq!(split(r"\w+\b", "hi there"), ["hi", "there"]);
        assert!(Regex::new(&units("(a")).is_err());
        assert!(Regex::new(&units("a{3,1}")).is_err());
    }
}
