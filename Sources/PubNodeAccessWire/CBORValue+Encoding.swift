extension CBORValue {
    /// Encodes this item with shortest-form heads and definite lengths.
    ///
    /// Map entries are written in their stored order; doubles are written as 64-bit floats.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Appends this item's encoding to `out`.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let value):
            Self.writeHead(major: 0, argument: value, into: &out)
        case .negative(let value):
            if value >= 0 {
                Self.writeHead(major: 0, argument: UInt64(value), into: &out)
            } else {
                // -1 - n without overflow: ~n on the two's-complement bits.
                Self.writeHead(major: 1, argument: UInt64(bitPattern: ~value), into: &out)
            }
        case .bytes(let bytes):
            Self.writeHead(major: 2, argument: UInt64(bytes.count), into: &out)
            out.append(contentsOf: bytes)
        case .text(let text):
            let utf8 = text.utf8
            Self.writeHead(major: 3, argument: UInt64(utf8.count), into: &out)
            out.append(contentsOf: utf8)
        case .array(let items):
            Self.writeHead(major: 4, argument: UInt64(items.count), into: &out)
            for item in items { item.encode(into: &out) }
        case .map(let pairs):
            Self.writeHead(major: 5, argument: UInt64(pairs.count), into: &out)
            for pair in pairs {
                pair.key.encode(into: &out)
                pair.value.encode(into: &out)
            }
        case .bool(let flag):
            out.append(flag ? 0xf5 : 0xf4)
        case .null:
            out.append(0xf6)
        case .double(let value):
            out.append(0xfb)
            let bits = value.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
            }
        }
    }

    /// Writes a head (major type + argument) in its shortest form.
    static func writeHead(major: UInt8, argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xff:
            out.append(type | 24)
            out.append(UInt8(argument))
        case 0x100...0xffff:
            out.append(type | 25)
            out.append(UInt8(argument >> 8))
            out.append(UInt8(truncatingIfNeeded: argument))
        case 0x1_0000...0xffff_ffff:
            out.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
            }
        default:
            out.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
            }
        }
    }
}
