@testable import InAppDelivery

/// A presenter whose answers the test scripts, per message id, in order; `.now`
/// when nothing is scripted. It records what it was asked and what it showed.
final class FakePresenter: MessagePresenter {
    var answers: [String: [DisplayChoice]] = [:]
    private(set) var asked: [String] = []
    private(set) var presented: [Presentation] = []

    func displayChoice(for presentation: Presentation) -> DisplayChoice {
        asked.append(presentation.id)
        guard var scripted = answers[presentation.id], !scripted.isEmpty else { return .now }
        let answer = scripted.removeFirst()
        answers[presentation.id] = scripted
        return answer
    }

    func present(_ presentation: Presentation) {
        presented.append(presentation)
    }
}
