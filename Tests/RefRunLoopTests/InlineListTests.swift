// The per-item list with an inline first element, against an array model.

import Testing

@testable import RefRunLoop

@Test func inlineListMatchesArrayExhaustively() {
    // Every sequence of up to 6 operations on lists of up to 4 elements: append, remove at each position, remove
    // all of one value, replace at each position. After each sequence the list must read as the array does,
    // through every access path (iteration, subscript, firstIndex, contains).
    var failures: [String] = []
    func check(_ list: InlineList<Int>, _ model: [Int], _ trail: [String]) {
        let subscripted = list.indices.map { list[$0] }
        guard Array(list) == model, subscripted == model, list.count == model.count,
            list.isEmpty == model.isEmpty
        else {
            failures.append("\(trail): \(Array(list)) vs \(model)")
            return
        }
        for value in 0...4 {
            guard list.firstIndex(where: { $0 == value }) == model.firstIndex(of: value),
                list.contains(where: { $0 == value }) == model.contains(value)
            else {
                failures.append("\(trail): search for \(value) in \(model)")
                return
            }
        }
    }
    func explore(_ list: InlineList<Int>, _ model: [Int], _ trail: [String], depth: Int) {
        check(list, model, trail)
        guard depth > 0, failures.count < 5 else { return }
        if model.count < 4 {
            var next = list
            var nextModel = model
            next.append(model.count)
            nextModel.append(model.count)
            explore(next, nextModel, trail + ["append"], depth: depth - 1)
        }
        for position in model.indices {
            var next = list
            var nextModel = model
            let removed = next.remove(at: position)
            let expected = nextModel.remove(at: position)
            if removed != expected { failures.append("\(trail): remove(at: \(position)) gave \(removed)") }
            explore(next, nextModel, trail + ["remove(at: \(position))"], depth: depth - 1)

            var replaced = list
            var replacedModel = model
            replaced[position] = 4
            replacedModel[position] = 4
            explore(replaced, replacedModel, trail + ["[\(position)] = 4"], depth: depth - 1)
        }
        for value in Set(model) {
            var next = list
            var nextModel = model
            next.removeAll { $0 == value }
            nextModel.removeAll { $0 == value }
            explore(next, nextModel, trail + ["removeAll(\(value))"], depth: depth - 1)
        }
    }
    explore([], [], [], depth: 6)
    #expect(failures.isEmpty, "failing sequences:\n\(failures.joined(separator: "\n"))")
}

@Test func inlineListLiteral() {
    let list: InlineList = [3, 1, 2]
    #expect(Array(list) == [3, 1, 2])
    let empty: InlineList<Int> = []
    #expect(empty.isEmpty && empty.firstIndex(where: { _ in true }) == nil)
}
