// Package pki makes the X.509 certificates sliceway's tests, examples and
// generated clusters need: certificate authorities, leaf certificates a CA
// signs or that sign themselves, and their PEM encodings.
//
// It is not a general-purpose CA. What it issues is short-lived by
// default, for the hosts and usages asked for, and nothing else: no
// revocation, no intermediate CAs (a CA signs leaves only), no
// certificate requests from a third party. It imports no testing
// package, so that code other than tests (the embedding example's default
// certificate, clustergen's TLS Secrets) can use it.
package pki
