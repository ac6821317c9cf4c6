//! Certificate policies in path validation (RFC 5280 sections 6.1.2 to 6.1.5: the
//! valid policy tree, policy mappings, requireExplicitPolicy, inhibitPolicyMapping,
//! inhibitAnyPolicy), kept as the policy graph of RFC 9618, which gives the tree's answer
//! with work linear in the certificates' policies (one node per policy and depth, each
//! with the set of its parents), where the tree can grow exponentially (CVE-2023-0464).
//!
//! Policies are always processed, as BoringSSL and Go process them: a path fails where
//! its CAs require an explicit policy (`requireExplicitPolicy`) and no policy is valid
//! for all of it, and where a certificate's policy extensions are malformed. OpenSSL
//! processes them only when asked (`-policy_check`, `-explicit_policy`, `-inhibit_any`,
//! `-inhibit_map`, `-policy`); asked, both agree. The inputs of 6.1.1 (c) and (e) to (g)
//! are [`PolicyInputs`]; the trust anchor's own policy extensions are not read.
//!
//! What OpenSSL 3.0 (`crypto/x509/pcy_*.c`) does beyond the RFC, followed here so that
//! the answers agree: a self-issued end entity does not count down `explicit_policy`,
//! and its requireExplicitPolicy lowers it to any value; policyMappings and
//! inhibitAnyPolicy are read only from certificates with certificatePolicies, and an
//! empty certificatePolicies is none; one that names a policy twice, a mapping to or
//! from anyPolicy, and a policyConstraints extension with neither field are malformed.

use super::failure::PathFailure;
use super::name_check::self_issued;
use const_oid::ObjectIdentifier as Oid;
use der::Decode;
use std::collections::{BTreeMap, BTreeSet};
use x509_cert::Certificate;
use x509_cert::ext::pkix::certpolicy::PolicyQualifierInfo;
use x509_cert::ext::pkix::{CertificatePolicies, PolicyConstraints, PolicyMappings};

/// anyPolicy (RFC 5280 4.2.1.4).
pub const ANY_POLICY: Oid = Oid::new_unwrap("2.5.29.32.0");
/// id-ce-inhibitAnyPolicy (RFC 5280 4.2.1.14).
pub(super) const INHIBIT_ANY_POLICY: Oid = Oid::new_unwrap("2.5.29.54");

/// The inputs of policy processing a relying party chooses (RFC 5280 6.1.1).
#[derive(Clone, Copy, Debug, Default)]
pub struct PolicyInputs<'a> {
    /// The policies acceptable to the relying party (user-initial-policy-set); `None`
    /// for any policy.
    pub user_policies: Option<&'a [Oid]>,
    /// A valid policy is required for the path (initial-explicit-policy).
    pub explicit: bool,
    /// anyPolicy is not matched by the policies it stands for
    /// (initial-any-policy-inhibit).
    pub inhibit_any: bool,
    /// Policy mappings are not followed (initial-policy-mapping-inhibit).
    pub inhibit_map: bool,
}

/// One certificate's policy extensions, read.
#[derive(Default)]
struct Extensions {
    /// The policies of certificatePolicies (anyPolicy apart) with their qualifiers,
    /// `None` without it.
    policies: Option<BTreeMap<Oid, Qualifiers>>,
    /// anyPolicy's qualifiers, if it is there.
    any_policy: Option<Qualifiers>,
    /// Whether certificatePolicies is critical.
    critical: bool,
    /// issuerDomainPolicy to its subjectDomainPolicies.
    mappings: BTreeMap<Oid, BTreeSet<Oid>>,
    require_explicit: Option<u32>,
    inhibit_mapping: Option<u32>,
    inhibit_any: Option<u32>,
}

impl Extensions {
    /// `Err` where an extension is malformed (OpenSSL's `EXFLAG_INVALID_POLICY`).
    fn of(cert: &Certificate) -> Result<Extensions, ()> {
        let tbs = cert.tbs_certificate();
        let mut e = Extensions::default();
        if let Some((_, pc)) = tbs.get_extension::<PolicyConstraints>().map_err(|_| ())? {
            if pc.require_explicit_policy.is_none() && pc.inhibit_policy_mapping.is_none() {
                return Err(());
            }
            (e.require_explicit, e.inhibit_mapping) =
                (pc.require_explicit_policy, pc.inhibit_policy_mapping);
        }
        let Some((critical, cp)) = tbs.get_extension::<CertificatePolicies>().map_err(|_| ())?
        else {
            return Ok(e);
        };
        if cp.0.is_empty() {
            return Ok(e);
        }
        e.critical = critical;
        let mut policies = BTreeMap::new();
        for info in cp.0 {
            let (id, qualifiers) = (info.policy_identifier, info.policy_qualifiers);
            let repeated = if id == ANY_POLICY {
                e.any_policy.replace(qualifiers).is_some()
            } else {
                policies.insert(id, qualifiers).is_some()
            };
            if repeated {
                return Err(());
            }
        }
        e.policies = Some(policies);
        if let Some((_, pm)) = tbs.get_extension::<PolicyMappings>().map_err(|_| ())? {
            for m in &pm.0 {
                if m.issuer_domain_policy == ANY_POLICY || m.subject_domain_policy == ANY_POLICY {
                    return Err(());
                }
                e.mappings
                    .entry(m.issuer_domain_policy)
                    .or_default()
                    .insert(m.subject_domain_policy);
            }
        }
        let exts = tbs.extensions().map(|v| v.as_slice()).unwrap_or(&[]);
        if let Some(ext) = exts.iter().find(|x| x.extn_id == INHIBIT_ANY_POLICY) {
            e.inhibit_any = Some(u32::from_der(ext.extn_value.as_bytes()).map_err(|_| ())?);
        }
        Ok(e)
    }
}

/// A policy's qualifiers (RFC 5280 4.2.1.4), `None` where it has none.
type Qualifiers = Option<Vec<PolicyQualifierInfo>>;

/// A node's parent at the depth above: the anyPolicy node there, or the node of a policy.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Parent {
    Any,
    Policy(Oid),
}

/// The nodes of one depth: each policy's parents and expected_policy_set, and whether
/// the anyPolicy node is there.
#[derive(Default)]
struct Level {
    nodes: BTreeMap<Oid, (BTreeSet<Parent>, BTreeSet<Oid>)>,
    any: bool,
}

impl Level {
    fn is_empty(&self) -> bool {
        self.nodes.is_empty() && !self.any
    }

    fn node(&mut self, policy: Oid) -> &mut (BTreeSet<Parent>, BTreeSet<Oid>) {
        self.nodes.entry(policy).or_insert_with(|| (BTreeSet::new(), BTreeSet::from([policy])))
    }
}

/// Processes the policies of `path` (end entity first, trust anchor last) with `inputs`.
pub(super) fn check_policies(
    path: &[Certificate],
    inputs: &PolicyInputs<'_>,
) -> Result<(), Failure> {
    // RFC 5280 numbers the certificates 1 (below the anchor) to n (the end entity).
    let n = path.len().saturating_sub(1);
    if n == 0 {
        return Ok(());
    }
    // Malformed extensions are reported from the end entity up, as OpenSSL reports them.
    let mut certs = Vec::with_capacity(n);
    for (depth, cert) in path[..n].iter().enumerate() {
        let e = Extensions::of(cert).map_err(|()| Failure::Invalid(depth))?;
        certs.push((e, self_issued(cert)));
    }
    certs.reverse();
    let start = |off: bool| if off { 0 } else { n as u64 + 1 };
    let mut explicit = start(inputs.explicit);
    let mut any_skip = start(inputs.inhibit_any);
    let mut map_skip = start(inputs.inhibit_map);
    let mut levels = vec![Level { nodes: BTreeMap::new(), any: true }];
    for (i, (c, si)) in certs.iter().enumerate() {
        let leaf = i + 1 == n;
        let prev = &levels[i];
        let mut level = Level::default();
        if let (Some(policies), false) = (&c.policies, prev.is_empty()) {
            // 6.1.3 (d) (1): each policy under the nodes expecting it, else under anyPolicy.
            for &p in policies.keys() {
                let mut parents: BTreeSet<Parent> = prev
                    .nodes
                    .iter()
                    .filter(|(_, (_, expected))| expected.contains(&p))
                    .map(|(&q, _)| Parent::Policy(q))
                    .collect();
                if parents.is_empty() && prev.any {
                    parents.insert(Parent::Any);
                }
                if !parents.is_empty() {
                    level.node(p).0.extend(parents);
                }
            }
            // (d) (2): anyPolicy stands for every policy expected above.
            if c.any_policy.is_some() && (any_skip > 0 || (!leaf && *si)) {
                for (&q, (_, expected)) in &prev.nodes {
                    for &p in expected {
                        level.node(p).0.insert(Parent::Policy(q));
                    }
                }
                level.any = prev.any;
            }
        }
        // 6.1.4 (b): the mappings of a CA certificate.
        if !leaf {
            for (issuer, subjects) in &c.mappings {
                if map_skip == 0 {
                    level.nodes.remove(issuer);
                } else if let Some((_, expected)) = level.nodes.get_mut(issuer) {
                    *expected = subjects.clone();
                } else if level.any {
                    level.nodes.insert(*issuer, (BTreeSet::from([Parent::Any]), subjects.clone()));
                }
            }
        }
        // (h) to (j), and 6.1.5 (a) and (b) for the end entity as OpenSSL counts them.
        let count = |skip: &mut u64, own: Option<u32>| {
            if *skip > 0 {
                *skip -= u64::from(!*si);
                if let Some(k) = own {
                    *skip = (*skip).min(u64::from(k));
                }
            }
        };
        count(&mut explicit, c.require_explicit);
        count(&mut map_skip, c.inhibit_mapping);
        count(&mut any_skip, c.inhibit_any);
        levels.push(level);
    }
    if explicit > 0 {
        return Ok(());
    }
    let leaf_level = &levels[n];
    if leaf_level.is_empty() {
        return Err(Failure::NoExplicitPolicy(Vec::new()));
    }
    let Some(users) = inputs.user_policies.filter(|u| !u.is_empty() && !u.contains(&ANY_POLICY))
    else {
        return Ok(());
    };
    if leaf_level.any {
        return Ok(());
    }
    // 6.1.5 (g): the authority's policies, those of nodes under anyPolicy (at any depth)
    // from which a node of the end entity's depth descends.
    let mut authority = Vec::new();
    let mut alive: BTreeSet<Oid> = leaf_level.nodes.keys().copied().collect();
    for depth in (1..=n).rev() {
        let level = &levels[depth];
        let (c, _) = &certs[depth - 1];
        for (p, (parents, _)) in &level.nodes {
            if alive.contains(p) && parents.contains(&Parent::Any) {
                // Its data: the certificate's own for the policy, else (a policy mapped
                // from under anyPolicy) anyPolicy's.
                let own = c.policies.as_ref().and_then(|ps| ps.get(p));
                let qualifiers = own.or(c.any_policy.as_ref()).cloned().flatten();
                authority.push(AuthorityPolicy { policy: *p, critical: c.critical, qualifiers });
            }
        }
        alive = level
            .nodes
            .iter()
            .filter(|(p, _)| alive.contains(*p))
            .flat_map(|(_, (parents, _))| parents.iter())
            .filter_map(|parent| match parent {
                Parent::Policy(q) => Some(*q),
                Parent::Any => None,
            })
            .collect();
    }
    if authority.iter().any(|a| users.contains(&a.policy)) {
        return Ok(());
    }
    // In OpenSSL's order (`OBJ_cmp`: the shorter encoding first).
    authority.sort_by(|a, b| {
        let (a, b) = (a.policy.as_bytes(), b.policy.as_bytes());
        a.len().cmp(&b.len()).then(a.cmp(b))
    });
    Err(Failure::NoExplicitPolicy(authority))
}

/// Whether the policies of `path` (end entity first, trust anchor last; signatures and
/// the rest not checked) are valid with `inputs`: [`PathFailure::InvalidPolicyExtension`]
/// or [`PathFailure::NoExplicitPolicy`] if not.
pub fn policies_valid(path: &[Certificate], inputs: &PolicyInputs<'_>) -> Result<(), PathFailure> {
    match check_policies(path, inputs) {
        Ok(()) => Ok(()),
        Err(Failure::Invalid(_)) => Err(PathFailure::InvalidPolicyExtension),
        Err(Failure::NoExplicitPolicy(_)) => Err(PathFailure::NoExplicitPolicy),
    }
}

/// A policy of the authority-constrained set (RFC 5280 6.1.5 (g)) and the data of its
/// node: the criticality of the certificatePolicies extension it came from, and its
/// qualifiers.
pub(super) struct AuthorityPolicy {
    pub policy: Oid,
    pub critical: bool,
    pub qualifiers: Qualifiers,
}

/// Why policy processing failed.
pub(super) enum Failure {
    /// A certificate's policy extensions are malformed, at this depth.
    Invalid(usize),
    /// No explicit policy, though one is required; the authority-constrained policy set.
    NoExplicitPolicy(Vec<AuthorityPolicy>),
}

/// The lines OpenSSL's `verify` prints after "no explicit policy" (`policies_print`):
/// the authority-constrained policies (`X509_POLICY_NODE_print`), none acceptable.
pub(super) fn no_explicit_policy_text(authority: &[AuthorityPolicy]) -> String {
    let mut t = String::from("Require explicit Policy: True\nAuthority Policies:");
    if authority.is_empty() {
        t.push_str(" <empty>\n");
    } else {
        t.push('\n');
        for a in authority {
            let critical = if a.critical { "Critical" } else { "Non Critical" };
            let name = super::policy_text::policy_name(&a.policy);
            t.push_str(&format!("  Policy: {name}\n    {critical}\n"));
            match &a.qualifiers {
                Some(q) => {
                    t.push_str(&super::policy_text::qualifiers_text(q, 4));
                    t.push('\n');
                }
                None => t.push_str("    No Qualifiers\n"),
            }
        }
    }
    t.push_str("User Policies: <empty>\n");
    t
}
