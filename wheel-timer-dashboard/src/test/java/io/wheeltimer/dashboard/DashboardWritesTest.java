package io.wheeltimer.dashboard;

import static io.wheeltimer.dashboard.DashboardMvc.from;
import static io.wheeltimer.dashboard.DashboardMvc.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

/**
 * With writes allowed: a write without the page's token, or with another, is refused and changes
 * nothing; with it, cancel and run-now act on a pending timeout; and remote requests once allowed
 * are answered; data shown when allowed.
 */
@OpenDashboardTest
class DashboardWritesTest {

    private static final String TASK = DashboardTestApplication.TASK;
    private static final Pattern TOKEN = Pattern.compile("name=\"wt-token\" value=\"([^\"]+)\"");

    @Autowired
    JdbcDurableTimer durable;

    @Autowired
    DashboardTestApplication.Payments payments;

    @RegisterExtension
    final DashboardMvc mvc = new DashboardMvc();

    private static RequestPostProcessor remote() {
        return from("203.0.113.9");
    }

    private String pendingPage() throws Exception {
        return mvc.page(get("/wheel-timer/pending").param("task", TASK).with(remote()));
    }

    /** {@code write} from a remote address with the page's token, which {@code token} has found. */
    private static MockHttpServletRequestBuilder withToken(MockHttpServletRequestBuilder write, Matcher token) {
        return write.param("wt-token", token.group(1)).with(remote());
    }

    @Test
    void aWriteWithoutThePagesTokenIsRefusedAndChangesNothing() throws Exception {
        durable.schedule(TASK, "order-forged", Duration.ofHours(1), "secret-ish");
        assertThat(pendingPage()).contains("data-testid=\"cancel\"").contains("secret-ish");

        mvc.perform(write("cancel", "order-forged").with(remote())).andExpect(status().isForbidden());
        mvc.perform(write("cancel", "order-forged").param("wt-token", "guessed").with(remote()))
                .andExpect(status().isForbidden());
        assertThat(durable.find(TASK, "order-forged")).isPresent();
        durable.cancel(TASK, "order-forged");
    }

    @Test
    void cancelAndRunNowActOnPendingTimeoutsWithThePagesToken() throws Exception {
        durable.schedule(TASK, "order-cancel", Duration.ofHours(1));
        durable.schedule(TASK, "order-run-now", Duration.ofHours(1), "kept");
        Matcher token = TOKEN.matcher(pendingPage());
        assertThat(token.find()).isTrue();

        mvc.perform(withToken(write("cancel", "order-cancel"), token)).andExpect(status().isSeeOther());
        mvc.perform(withToken(write("run-now", "order-run-now"), token)).andExpect(status().isSeeOther());
        mvc.perform(withToken(write("cancel", "order-cancel"), token)).andExpect(status().isNotFound());

        assertThat(durable.find(TASK, "order-cancel")).isEmpty();
        await().atMost(Duration.ofSeconds(30)).until(() -> payments.ran.contains("order-run-now"));
        assertThat(payments.ran).doesNotContain("order-cancel");
    }

    @Test
    void anUnknownActionIsABadRequest() throws Exception {
        durable.schedule(TASK, "order-x", Duration.ofHours(1));
        Matcher token = TOKEN.matcher(pendingPage());
        assertThat(token.find()).isTrue();
        mvc.perform(withToken(write("explode", "order-x"), token)).andExpect(status().isBadRequest());
        assertThat(durable.find(TASK, "order-x")).isPresent();
        durable.cancel(TASK, "order-x");
    }
}
