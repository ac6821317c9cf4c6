//! Object names a configuration file adds to OpenSSL's table: its `oid_section` names a
//! section of `name = dotted.oid` lines, each making an object whose short and long name
//! are `name` (the `openssl` commands' `add_oid_section`), so that a TSA's policies can be
//! written `tsa_policy1` in its configuration and printed so in its tokens' text.

use super::object::{object_by_name, object_text};
use crate::conf::Conf;
use const_oid::ObjectIdentifier;

/// OpenSSL's object table with a configuration's own objects added.
#[derive(Clone, Debug, Default)]
pub struct ObjectNames {
    added: Vec<(String, ObjectIdentifier)>,
}

impl ObjectNames {
    /// The objects of `conf`'s `oid_section`, and a warning where one could not be added.
    /// As OpenSSL, the first line that fails (a value that is not a dotted OID, or an
    /// object or name that exists already) ends the section.
    pub fn from_conf(conf: &Conf) -> (ObjectNames, Option<String>) {
        let mut names = ObjectNames::default();
        let Some(section) = conf.get("default", "oid_section") else { return (names, None) };
        let Some(lines) = conf.section(section) else {
            return (names, Some(format!("problem loading oid section {section}")));
        };
        for (name, value) in lines {
            let oid = ObjectIdentifier::new(value.trim()).ok();
            let taken = |oid: &ObjectIdentifier| {
                crate::asn1::object_name(oid.as_bytes()).is_some()
                    || names.added.iter().any(|(n, o)| n == name || o == oid)
                    || object_by_name(name).is_some()
            };
            match oid {
                Some(oid) if !taken(&oid) => names.added.push((name.clone(), oid)),
                _ => return (names, Some(format!("problem creating object {name}={value}"))),
            }
        }
        (names, None)
    }

    /// The object `text` names: an added name, a name of OpenSSL's table, or dotted
    /// decimal (OpenSSL's `OBJ_txt2obj`).
    pub fn parse(&self, text: &str) -> Option<ObjectIdentifier> {
        if let Some((_, oid)) = self.added.iter().find(|(n, _)| n == text) {
            return Some(*oid);
        }
        object_by_name(text).or_else(|| ObjectIdentifier::new(text).ok())
    }

    /// `oid` as OpenSSL prints it (`OBJ_obj2txt`): its table name, its added name, or
    /// its dotted form.
    pub fn text(&self, oid: &ObjectIdentifier) -> String {
        if crate::asn1::object_name(oid.as_bytes()).is_none()
            && let Some((name, _)) = self.added.iter().find(|(_, o)| o == oid)
        {
            return name.clone();
        }
        object_text(oid.as_bytes()).unwrap_or_else(|| oid.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_adds_names() {
        let conf = Conf::parse(
            "oid_section = new_oids\n[ new_oids ]\ntsa_policy1 = 1.2.3.4.1\ntsa_policy2 = 1.2.3.4.5.6\n",
        )
        .unwrap();
        let (names, warning) = ObjectNames::from_conf(&conf);
        assert_eq!(warning, None);
        let p1 = ObjectIdentifier::new_unwrap("1.2.3.4.1");
        assert_eq!(names.parse("tsa_policy1"), Some(p1));
        assert_eq!(names.text(&p1), "tsa_policy1");
        assert_eq!(names.parse("1.2.3.4.1"), Some(p1));
        assert_eq!(
            names.parse("sha256").map(|o| o.to_string()).as_deref(),
            Some("2.16.840.1.101.3.4.2.1")
        );
        assert_eq!(names.text(&ObjectIdentifier::new_unwrap("1.2.3.9")), "1.2.3.9");
        assert_eq!(names.parse("no such name"), None);
    }

    #[test]
    fn a_bad_line_ends_the_section() {
        let conf = Conf::parse("oid_section = o\n[ o ]\na = 1.2.3.4\nb = nonsense\nc = 1.2.3.5\n")
            .unwrap();
        let (names, warning) = ObjectNames::from_conf(&conf);
        assert_eq!(warning.as_deref(), Some("problem creating object b=nonsense"));
        assert!(names.parse("a").is_some());
        assert!(names.parse("c").is_none());
        let dup = Conf::parse("oid_section = o\n[ o ]\nmine = 2.16.840.1.101.3.4.2.1\n").unwrap();
        assert!(ObjectNames::from_conf(&dup).1.is_some());
    }
}
