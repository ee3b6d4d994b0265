//! A small command-line parser: positional arguments, `--name value` / `--name=value`
//! options and `--name` switches, each checked against what the command accepts.

/// Parsed arguments of one command.
#[derive(Debug, Default)]
pub struct Args {
    pub positional: Vec<String>,
    options: Vec<(String, String)>,
    switches: Vec<String>,
}

impl Args {
    /// Parses `args`; `options` take a value, `switches` do not; anything else starting with
    /// `--` is an error.
    pub fn parse(args: &[String], options: &[&str], switches: &[&str]) -> Result<Self, String> {
        let mut out = Self::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                out.positional.push(a.clone());
                continue;
            };
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (name, None),
            };
            if switches.contains(&name) && inline.is_none() {
                out.switches.push(name.to_owned());
            } else if options.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it.next().ok_or(format!("--{name} needs a value"))?.clone(),
                };
                out.options.push((name.to_owned(), value));
            } else {
                return Err(format!("unknown option --{name}"));
            }
        }
        Ok(out)
    }

    /// The last value given for `--name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the switch `--name` was given.
    pub fn switch(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// `--name`'s value as a comma-separated list of numbers.
    pub fn numbers(&self, name: &str) -> Result<Option<Vec<u64>>, String> {
        let Some(v) = self.value(name) else {
            return Ok(None);
        };
        v.split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .map_err(|_| format!("--{name}: {x:?} is not a number"))
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }
}
