use super::attr::{friendly_name, local_key_id, read, set};
use super::*;

/// Attributes print as OpenSSL's `print_attribs` prints them, and a friendly name
/// outside Latin-1 survives the BMPString both ways.
#[test]
fn attributes_print_as_openssl_prints_them() {
    let attrs =
        set(vec![local_key_id(&[0x1d, 0xdd, 0x90]).unwrap(), friendly_name("Grüße 😀").unwrap()])
            .unwrap()
            .unwrap();
    let read = read(Some(&attrs));
    let lines: Vec<String> = read.iter().map(BagAttribute::openssl_line).collect();
    // DER orders the SET by encoding: here the shorter localKeyID attribute first.
    assert_eq!(lines, ["    localKeyID: 1D DD 90 ", "    friendlyName: Grüße 😀"]);
    assert_eq!(read[1].friendly_name(), Some("Grüße 😀"));
    assert_eq!(read[0].local_key_id(), Some(&[0x1d, 0xdd, 0x90][..]));
    assert_eq!(read[1].local_key_id(), None);
    let other = BagAttribute {
        oid: "1.3.6.1.4.1.311.17.1".parse().unwrap(),
        value: AttributeValue::Other(6),
    };
    assert_eq!(other.openssl_line(), "    Microsoft CSP Name: <Unsupported tag 6>");
}
