extension UInt8 {
    /// The value of this byte as a hexadecimal digit (either case), nil for any other byte: read
    /// by percent escapes (a signature's canonical query, a request target) and chunk sizes alike.
    /// Package-wide, not public: it is no part of the wire formats' API. Inlinable, so that the
    /// request parser's and a publish's decoding loops keep it inline across the module boundary.
    @inlinable
    package var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return self - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
