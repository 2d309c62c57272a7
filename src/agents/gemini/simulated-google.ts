/**
 * The Google account hosts the Gemini CLI calls under a Google login before its first model call: it checks the
 * stored access token (`POST https://oauth2.googleapis.com/tokeninfo`, and refuses the login when that fails) and
 * asks for the account's e-mail (`GET https://www.googleapis.com/oauth2/v2/userinfo`) when no account is cached.
 * Against the simulator these arrive at it as the trial's proxy; it plays exactly these hosts, over TLS with the
 * certificate below, which a trial against the simulator alone trusts (NODE_EXTRA_CA_CERTS), and refuses every other
 * tunnel. The key is public on purpose: it proves nothing beyond a simulated trial, whose every request stays on
 * loopback. A self-signed P-256 certificate for the two hosts, valid until 2126.
 */

export const SIMULATED_GOOGLE_HOSTS: readonly string[] = ['oauth2.googleapis.com', 'www.googleapis.com'];

export const SIMULATED_GOOGLE_CERT = `-----BEGIN CERTIFICATE-----
MIICNzCCAd6gAwIBAgIUWdA4ItfnH3L/Vuc0hmJqTVO+jEwwCgYIKoZIzj0EAwIw
QjFAMD4GA1UEAww3c2tpbGxwcm9iZSBzaW11bGF0b3IgKEdvb2dsZSBhY2NvdW50
IGhvc3RzLCB0cmlhbC1vbmx5KTAgFw0yNjEyMDQxODE2NTJaGA8yMTI2MTExMDE4
MTY1MlowQjFAMD4GA1UEAww3c2tpbGxwcm9iZSBzaW11bGF0b3IgKEdvb2dsZSBh
Y2NvdW50IGhvc3RzLCB0cmlhbC1vbmx5KTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABFdX2jydDy9pBOMMYHqhjtCCSa32+KFW0qD5YGVfKYbnvS7SvDVuszeJ58ie
B0jkwI+O3p476lyFnTTPlPyGz8Gjga8wgawwHQYDVR0OBBYEFCIQqBdgyUDeYwxk
f6onKYJOc2avMB8GA1UdIwQYMBaAFCIQqBdgyUDeYwxkf6onKYJOc2avMDQGA1Ud
EQQtMCuCFW9hdXRoMi5nb29nbGVhcGlzLmNvbYISd3d3Lmdvb2dsZWFwaXMuY29t
MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgKEMBMGA1UdJQQMMAoGCCsG
AQUFBwMBMAoGCCqGSM49BAMCA0cAMEQCIFOMiVeEEdYy+L0EgF2qJ0lyHMDvn+W2
HdTbmuWBzT6HAiADvpoGmoOh5kzKCompOV9OYc0yLbKgKBWhjvN8KofzvQ==
-----END CERTIFICATE-----
`;

export const SIMULATED_GOOGLE_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgzVv8C22at0x9uJyE
L3UV7lLHQffbPVISw4HnZ709pxKhRANCAARXV9o8nQ8vaQTjDGB6oY7Qgkmt9vih
VtKg+WBlXymG570u0rw1brM3iefIngdI5MCPjt6eO+pchZ00z5T8hs/B
-----END PRIVATE KEY-----
`;
