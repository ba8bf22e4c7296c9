/** A TLS key pair no client trusts, for tests that must see a certificate refused. */
// A certificate for 127.0.0.1 signed by itself, made once for the tests (`openssl req -x509`):
// nothing trusts it, so both clients must refuse the server that presents it.
export const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNRQUgtyBNVauZJqQ
sdwblGJQBlRhmoTnXOxFCZkambmhRANCAASrem0skSW4NTwU3UG2Qaq3z6khqGDe
IpxanzyuCLuwOh3/rZrFz5C7iw39+fPhqCVQvic55lIzcu9I2ZbzpRBP
-----END PRIVATE KEY-----`;
export const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUW/qB+Kg3OXOX0UdyDUKgWwxwwhIwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwNjEyNDkyNFoYDzIxMjYxMTEy
MTI0OTI0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASrem0skSW4NTwU3UG2Qaq3z6khqGDeIpxanzyuCLuwOh3/rZrFz5C7
iw39+fPhqCVQvic55lIzcu9I2ZbzpRBPo28wbTAdBgNVHQ4EFgQU3d1nyMOmDq/1
nkmm62mVsZfia3swHwYDVR0jBBgwFoAU3d1nyMOmDq/1nkmm62mVsZfia3swDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIgZV9qE3KEWjABz+ESZ1JFL8f0MpI7mguzZe1y6jZQzEQCIQDi
/B27k1HIJ4tf32oDyMahHPd5SpWP+te0eNbeMyXzTA==
-----END CERTIFICATE-----`;
