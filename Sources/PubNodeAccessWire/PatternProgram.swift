/// A compiled pattern: a Thompson NFA simulated breadth-first (Pike VM without captures).
struct PatternProgram: Sendable {
    enum Instruction: Sendable {
        case scalar(UInt32)
        case set(Int)
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertLineEnd
        case assertEnd
        case match
    }

    var instructions: [Instruction] = []
    var sets: [PatternSet] = []

    /// Compiles `node`, rejecting programs larger than `limit` instructions.
    init(compiling node: PatternNode, limit: Int) throws(ResourcePatternError) {
        guard Self.size(of: node, limit: limit) + 1 <= limit else { throw .tooComplex }
        emit(node)
        instructions.append(.match)
    }

    /// The instruction count `node` compiles to, saturating just above `limit`.
    static func size(of node: PatternNode, limit: Int) -> Int {
        let over = limit + 1
        switch node {
        case .empty: return 0
        case .scalar, .set, .lineStart, .lineEnd, .absoluteEnd: return 1
        case .concat(let items):
            return min(over, items.reduce(0) { min(over, $0 + size(of: $1, limit: limit)) })
        case .alternate(let branches):
            return min(over, branches.reduce(0) { min(over, $0 + size(of: $1, limit: limit) + 2) })
        case .repetition(let inner, let minimum, let maximum):
            let body = size(of: inner, limit: limit)
            let copies = maximum ?? (minimum + 1)
            let (product, overflow) = (body + 2).multipliedReportingOverflow(by: copies)
            return overflow ? over : min(over, product)
        }
    }

    mutating func emit(_ node: PatternNode) {
        switch node {
        case .empty: break
        case .scalar(let value): instructions.append(.scalar(value))
        case .set(let set):
            sets.append(set)
            instructions.append(.set(sets.count - 1))
        case .lineStart: instructions.append(.assertStart)
        case .lineEnd: instructions.append(.assertLineEnd)
        case .absoluteEnd: instructions.append(.assertEnd)
        case .concat(let items): for item in items { emit(item) }
        case .alternate(let branches):
            var exits: [Int] = []
            for (position, branch) in branches.enumerated() {
                if position == branches.count - 1 {
                    emit(branch)
                } else {
                    let split = instructions.count
                    instructions.append(.split(split + 1, -1))
                    emit(branch)
                    exits.append(instructions.count)
                    instructions.append(.jump(-1))
                    instructions[split] = .split(split + 1, instructions.count)
                }
            }
            for exit in exits { instructions[exit] = .jump(instructions.count) }
        case .repetition(let inner, let minimum, let maximum):
            for _ in 0..<minimum { emit(inner) }
            if let maximum {
                // Each optional copy may skip straight to the end.
                var skips: [Int] = []
                for _ in minimum..<maximum {
                    skips.append(instructions.count)
                    instructions.append(.split(instructions.count + 1, -1))
                    emit(inner)
                }
                for skip in skips { instructions[skip] = .split(skip + 1, instructions.count) }
            } else {
                let loop = instructions.count
                instructions.append(.split(loop + 1, -1))
                emit(inner)
                instructions.append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        }
    }

    /// Whether the program matches anywhere in `input`.
    func search(_ input: [Unicode.Scalar]) -> Bool {
        var current = ThreadSet(capacity: instructions.count)
        var next = ThreadSet(capacity: instructions.count)
        var stack: [Int] = []
        for position in 0...input.count {
            if addClosure(0, at: position, in: input, to: &current, stack: &stack) { return true }
            guard position < input.count else { break }
            let scalar = input[position]
            next.removeAll()
            for pc in current.members {
                let advances: Bool
                switch instructions[pc] {
                case .scalar(let value): advances = scalar.value == value
                case .set(let index): advances = sets[index].contains(scalar)
                default: advances = false
                }
                if advances, addClosure(pc + 1, at: position + 1, in: input, to: &next, stack: &stack) { return true }
            }
            swap(&current, &next)
        }
        return false
    }

    /// Adds `pc` and everything reachable from it without consuming input; `true` on reaching a match.
    func addClosure(
        _ pc: Int, at position: Int, in input: [Unicode.Scalar], to set: inout ThreadSet, stack: inout [Int]
    ) -> Bool {
        stack.append(pc)
        while let pc = stack.popLast() {
            guard set.insert(pc) else { continue }
            switch instructions[pc] {
            case .match:
                stack.removeAll()
                return true
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assertStart:
                if position == 0 { stack.append(pc + 1) }
            case .assertLineEnd:
                if position == input.count || (position == input.count - 1 && input[position] == "\n") {
                    stack.append(pc + 1)
                }
            case .assertEnd:
                if position == input.count { stack.append(pc + 1) }
            case .scalar, .set: break
            }
        }
        return false
    }
}

/// A sparse set of instruction indices with O(1) insert, membership and clear.
struct ThreadSet {
    var members: [Int] = []
    var slots: [Int]

    init(capacity: Int) {
        slots = Array(repeating: 0, count: capacity)
    }

    /// Inserts `pc`; `false` if it was already present.
    mutating func insert(_ pc: Int) -> Bool {
        let slot = slots[pc]
        if slot < members.count, members[slot] == pc { return false }
        slots[pc] = members.count
        members.append(pc)
        return true
    }

    mutating func removeAll() {
        members.removeAll(keepingCapacity: true)
    }
}
