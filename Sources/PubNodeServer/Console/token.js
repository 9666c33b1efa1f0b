// Reads an Access Manager token (base64url CBOR, PubNub's layout) for display. Nothing is
// verified here: only the node can check the signature.

function decodeCBOR(bytes) {
  let at = 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = (info) => {
    if (info < 24) return info;
    if (info === 24) return bytes[at++];
    if (info === 25) { const v = view.getUint16(at); at += 2; return v; }
    if (info === 26) { const v = view.getUint32(at); at += 4; return v; }
    if (info === 27) { const v = Number(view.getBigUint64(at)); at += 8; return v; }
    throw new Error("unsupported CBOR length");
  };
  const item = (depth) => {
    if (depth > 16 || at >= bytes.length) throw new Error("malformed token");
    const head = bytes[at++], major = head >> 5, info = head & 31;
    switch (major) {
      case 0: return length(info);
      case 1: return -1 - length(info);
      case 2: { const n = length(info); const b = bytes.slice(at, at + n); at += n; return b; }
      case 3: { const n = length(info); const t = new TextDecoder().decode(bytes.slice(at, at + n)); at += n; return t; }
      case 4: { const n = length(info); return Array.from({ length: n }, () => item(depth + 1)); }
      case 5: {
        const n = length(info), out = {};
        for (let i = 0; i < n; i++) {
          const key = item(depth + 1); // PubNub writes keys as byte strings
          out[typeof key === "string" ? key : new TextDecoder().decode(key)] = item(depth + 1);
        }
        return out;
      }
      case 7: return info === 20 ? false : info === 21 ? true : null;
      default: throw new Error("unsupported CBOR item");
    }
  };
  return item(0);
}

const BITS = [["read", 1], ["write", 2], ["manage", 4], ["delete", 8], ["get", 32], ["update", 64], ["join", 128]];
const permissions = (bits) => BITS.filter(([, b]) => bits & b).map(([n]) => n).join(", ");

/** The token's content: {version, issued, ttl, expires, uuid, meta, resources: [{kind, match, name, permissions}]}. */
export function parseToken(token) {
  const base64 = token.trim().replace(/%3D/gi, "=").replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const content = decodeCBOR(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  const resources = [];
  const kinds = { chan: "channel", grp: "group", uuid: "uuid", usr: "user", spc: "space" };
  for (const [match, section] of [["exact", content.res], ["pattern", content.pat]]) {
    for (const [kind, entries] of Object.entries(section || {})) {
      for (const [name, bits] of Object.entries(entries || {})) resources.push({ kind: kinds[kind] || kind, match, name, permissions: permissions(bits) });
    }
  }
  return { version: content.v, issued: new Date(content.t * 1000), ttl: content.ttl,
    expires: new Date((content.t + content.ttl * 60) * 1000), uuid: content.uuid, meta: content.meta, resources };
}
