package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The gateway's side of tool approvals: the question in the chat, /approve and /deny, the timeout, a stop. */
class ApprovalsTest extends GatewaySpec {
    final List<ApprovalDecision> decisions = new CopyOnWriteArrayList<>();

    /** An agent that asks to run one dangerous command and reports the answer it got. */
    final Agent asking = new Agent() {
        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            ApprovalDecision d = listener.requestApproval(new ApprovalRequest("call_1", "shell", "rm -rf build", "runs a shell command"));
            decisions.add(d);
            if (interrupt.isRaised()) {
                return new TurnOutcome.Interrupted(interrupt.reason());
            }
            String reply = d.approved() ? "ran it" : "did not run it: " + d.toolResultText();
            listener.onMessage(ChatMessage.assistant(reply));
            return new TurnOutcome.Final(reply);
        }

        @Override
        public String describe() {
            return "asking agent";
        }
    };

    private void start(Duration approvalTimeout, boolean interactive) {
        h = new Harness(dir).platform("telegram", interactive);
        h.settings = h.settings.withApprovals(approvalTimeout, false);
        h.agentOverride = asking;
        h.start();
    }

    @Test
    void theChatIsAskedAndApproveLetsTheCallRun() {
        start(Duration.ofMinutes(5), true);
        h.loopback("telegram").say(alice, "clean up");

        assertThat(h.loopback("telegram").awaitSent(t -> t.startsWith("\u26a0\ufe0f Approval needed: shell"), Harness.WAIT).text())
                .contains("rm -rf build", "/approve", "/deny");
        h.loopback("telegram").say(alice, "/approve");

        h.loopback("telegram").awaitSent("ran it"::equals, Harness.WAIT);
        assertThat(decisions).containsExactly(ApprovalDecision.APPROVED_ONCE);
    }

    @Test
    void denyStopsTheCallAndTheModelIsToldWhy() {
        start(Duration.ofMinutes(5), true);
        h.loopback("telegram").say(alice, "clean up");
        h.loopback("telegram").awaitSent(t -> t.startsWith("\u26a0\ufe0f Approval needed"), Harness.WAIT);

        h.loopback("telegram").say(alice, "/deny");

        h.loopback("telegram").awaitSent(t -> t.startsWith("did not run it: Denied"), Harness.WAIT);
        assertThat(decisions).containsExactly(ApprovalDecision.DENIED);
    }

    @Test
    void noAnswerInTimeIsADenial() {
        start(Duration.ofMillis(300), true);
        h.loopback("telegram").say(alice, "clean up");

        h.loopback("telegram").awaitSent(t -> t.startsWith("did not run it"), Harness.WAIT);
        assertThat(decisions).containsExactly(ApprovalDecision.TIMED_OUT);
        assertThat(h.loopback("telegram").sentMatching(t -> t.startsWith("\u23f1 No answer in time"))).hasSize(1);
    }

    @Test
    void whereNobodyCanAnswerDangerousCallsAreDeniedWithoutAsking() {
        start(Duration.ofMinutes(5), false);
        h.loopback("telegram").say(alice, "clean up");

        h.loopback("telegram").awaitSent(t -> t.startsWith("did not run it"), Harness.WAIT);
        assertThat(decisions).containsExactly(ApprovalDecision.DENIED_NON_INTERACTIVE);
        assertThat(h.loopback("telegram").sentMatching(t -> t.contains("Approval needed"))).isEmpty();
    }

    @Test
    void aSenderWhoMayNotApprove_isNotAsked_andTheModelIsToldAnAdminDecides() {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withApprovals(Duration.ofMinutes(5), false);
        h.agentOverride = asking;
        SessionSource bob = Harness.dm("telegram", "654321", "u2");
        h.allowedUsers.add("u2");
        h.with(b -> b.approvers(source -> !"u2".equals(source.userId())));
        h.start();

        h.loopback("telegram").say(bob, "clean up");
        h.loopback("telegram").awaitSent(t -> t.startsWith("did not run it: Denied: this user may not approve"), Harness.WAIT);
        assertThat(decisions).containsExactly(ApprovalDecision.DENIED_NOT_ALLOWED);
        assertThat(h.loopback("telegram").sentMatching(t -> t.contains("Approval needed"))).as("nobody was asked").isEmpty();

        h.loopback("telegram").say(alice, "clean up");
        h.loopback("telegram").awaitSent(t -> t.startsWith("\u26a0\ufe0f Approval needed"), Harness.WAIT);
        h.loopback("telegram").say(alice, "/approve");
        h.loopback("telegram").awaitSent("ran it"::equals, Harness.WAIT);
    }

    @Test
    void aQuestionOpenWhenTheGatewayStopsEndsAsInterrupted() {
        start(Duration.ofMinutes(5), true);
        h.loopback("telegram").say(alice, "clean up");
        h.loopback("telegram").awaitSent(t -> t.startsWith("\u26a0\ufe0f Approval needed"), Harness.WAIT);

        h.gateway.stop(StopKind.RESTART, false);

        assertThat(decisions).containsExactly(ApprovalDecision.INTERRUPTED);
        assertThat(ApprovalDecision.INTERRUPTED.toolResultText()).contains("gateway restarted");
        assertThat(h.entry(alice).resumePending()).isTrue();
    }
}
