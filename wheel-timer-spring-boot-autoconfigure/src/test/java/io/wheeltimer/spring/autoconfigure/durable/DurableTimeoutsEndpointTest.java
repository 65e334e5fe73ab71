package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimeoutsEndpoint.OverviewDescriptor;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimeoutsEndpoint.ProblemDescriptor;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimeoutsEndpoint.TimeoutsDescriptor;
import java.security.Principal;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The {@code durabletimeouts} endpoint's choices that its HTTP tests do not reach: data shown
 * {@code when-authorized} (to an authenticated user, with one of the roles when they are set), and
 * a database that cannot be reached.
 */
class DurableTimeoutsEndpointTest {

    private final JdbcDurableTimer timer = mock(JdbcDurableTimer.class);

    private final DurableTimeout withData =
            new DurableTimeout("order-payment", "o-1", Instant.parse("2026-12-03T12:00:00Z"), "{\"a\":1}", 1);

    @Test
    void whenAuthorizedTheDataIsShownToAnAuthenticatedUserWithOneOfTheRoles() {
        given(timer.pending("order-payment", 50)).willReturn(List.of(withData));
        DurableTimeoutsEndpoint endpoint = new DurableTimeoutsEndpoint(timer, Show.WHEN_AUTHORIZED, Set.of("ops"));

        assertThat(data(endpoint, SecurityContext.NONE)).isEqualTo(DurableTimeoutsEndpoint.HIDDEN);
        assertThat(data(endpoint, user(false))).isEqualTo(DurableTimeoutsEndpoint.HIDDEN);
        assertThat(data(endpoint, user(true))).isEqualTo("{\"a\":1}");

        DurableTimeoutsEndpoint anyUser = new DurableTimeoutsEndpoint(timer, Show.WHEN_AUTHORIZED, Set.of());
        assertThat(data(anyUser, SecurityContext.NONE)).isEqualTo(DurableTimeoutsEndpoint.HIDDEN);
        assertThat(data(anyUser, user(false))).isEqualTo("{\"a\":1}");
    }

    @Test
    void withoutTheDatabaseTheRootStillAnswersWithoutUnhandledAndAListIs503() {
        given(timer.instanceId()).willReturn("node-a");
        given(timer.held()).willReturn(3);
        given(timer.tasks()).willReturn(Set.of("order-payment"));
        given(timer.unhandledTasks()).willThrow(new DataAccessResourceFailureException("connection refused"));
        given(timer.pending("order-payment", 50))
                .willThrow(new DataAccessResourceFailureException("connection refused"));
        DurableTimeoutsEndpoint endpoint = new DurableTimeoutsEndpoint(timer, Show.NEVER, Set.of());

        assertThat(endpoint.overview()).isEqualTo(new OverviewDescriptor("node-a", 3, List.of("order-payment"), null));
        WebEndpointResponse<Object> list = endpoint.timeouts("order-payment", null, null, SecurityContext.NONE);
        assertThat(list.getStatus()).isEqualTo(503);
        assertThat(((ProblemDescriptor) list.getBody()).detail()).contains("cannot be reached", "connection refused");
    }

    private static String data(DurableTimeoutsEndpoint endpoint, SecurityContext security) {
        WebEndpointResponse<Object> response = endpoint.timeouts("order-payment", null, null, security);
        assertThat(response.getStatus()).isEqualTo(200);
        return ((TimeoutsDescriptor) response.getBody()).timeouts().get(0).data();
    }

    private static SecurityContext user(boolean ops) {
        Principal principal = () -> "alice";
        return new SecurityContext() {
            @Override
            public Principal getPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return ops && role.equals("ops");
            }
        };
    }
}
