package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/** The access rules one by one: loopback, Spring Security, remote allowed, data shown, writes. */
class DashboardAccessRulesTest {

    private static MockHttpServletRequest from(String address) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/wheel-timer");
        request.setRemoteAddr(address);
        return request;
    }

    private static DashboardProperties properties() {
        return new DashboardProperties();
    }

    @Test
    void withoutSpringSecurityOnlyLoopbackIsAnswered() {
        DashboardAccess access = new DashboardAccess(properties(), false);
        assertThat(access.refusesRemote(from("203.0.113.9"))).isTrue();
        assertThat(access.refusesRemote(from("127.0.0.1"))).isFalse();
    }

    @Test
    void withSpringSecurityItsRulesDecideAndTheLoopbackRuleIsOff() {
        DashboardAccess access = new DashboardAccess(properties(), true);
        assertThat(access.refusesRemote(from("203.0.113.9"))).isFalse();
    }

    @Test
    void allowRemoteLiftsTheLoopbackRule() {
        DashboardProperties properties = properties();
        properties.setAllowRemote(true);
        assertThat(new DashboardAccess(properties, false).refusesRemote(from("203.0.113.9")))
                .isFalse();
    }

    @Test
    void dataIsShownPerShowData() {
        MockHttpServletRequest anonymous = from("127.0.0.1");
        MockHttpServletRequest signedIn = from("127.0.0.1");
        signedIn.setUserPrincipal(() -> "operator");
        DashboardProperties properties = properties();

        assertThat(new DashboardAccess(properties, false).showsData(signedIn))
                .as("never, the default")
                .isFalse();
        properties.setShowData(DashboardProperties.ShowData.WHEN_AUTHORIZED);
        assertThat(new DashboardAccess(properties, false).showsData(signedIn)).isTrue();
        assertThat(new DashboardAccess(properties, false).showsData(anonymous)).isFalse();
        properties.setShowData(DashboardProperties.ShowData.ALWAYS);
        assertThat(new DashboardAccess(properties, false).showsData(anonymous)).isTrue();
    }

    @Test
    void writeFormsCarryTheTokenOnlyWhenWritesAreAllowed() {
        DashboardProperties properties = properties();
        Viewer readOnly = new DashboardAccess(properties, false).viewer(from("127.0.0.1"), "/wheel-timer");
        assertThat(readOnly.writes()).isFalse();
        assertThat(readOnly.tokenFields()).isEmpty();

        properties.setReadOnly(false);
        DashboardAccess access = new DashboardAccess(properties, false);
        Viewer writes = access.viewer(from("127.0.0.1"), "/wheel-timer");
        assertThat(writes.writes()).isTrue();
        String token = writes.tokenFields().replaceAll(".*value=\"([^\"]+)\".*", "$1");
        assertThat(access.isToken(token)).isTrue();
        assertThat(access.isToken(token + "x")).isFalse();
        assertThat(access.isToken(null)).isFalse();
        assertThat(new DashboardAccess(properties, false).isToken(token))
                .as("each start has its own token")
                .isFalse();
    }
}
