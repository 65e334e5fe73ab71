package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.RequestPostProcessor;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * With writes allowed: a write without the page's token, or with another, is refused and changes
 * nothing; with it, cancel and run-now act on a pending timeout; and remote requests once allowed
 * are answered; data shown when allowed.
 */
@SpringBootTest(
        classes = DashboardTestApplication.class,
        properties = {
            "wheel-timer.dashboard.read-only=false",
            "wheel-timer.dashboard.allow-remote=true",
            "wheel-timer.dashboard.show-data=always"
        })
class DashboardWritesTest {

    private static final String TASK = DashboardTestApplication.TASK;
    private static final Pattern TOKEN = Pattern.compile("name=\"wt-token\" value=\"([^\"]+)\"");

    @Autowired
    WebApplicationContext context;

    @Autowired
    JdbcDurableTimer durable;

    @Autowired
    DashboardTestApplication.Payments payments;

    MockMvc mvc;

    @BeforeEach
    void mockMvc() {
        mvc = MockMvcBuilders.webAppContextSetup(context).build();
    }

    private static RequestPostProcessor remote() {
        return request -> {
            request.setRemoteAddr("203.0.113.9");
            return request;
        };
    }

    private String pendingPage() throws Exception {
        return mvc.perform(get("/wheel-timer/pending").param("task", TASK).with(remote()))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
    }

    @Test
    void aWriteWithoutThePagesTokenIsRefusedAndChangesNothing() throws Exception {
        durable.schedule(TASK, "order-forged", Duration.ofHours(1), "secret-ish");
        assertThat(pendingPage()).contains("data-testid=\"cancel\"").contains("secret-ish");

        mvc.perform(post("/wheel-timer/actions/cancel")
                        .param("task", TASK)
                        .param("key", "order-forged")
                        .with(remote()))
                .andExpect(status().isForbidden());
        mvc.perform(post("/wheel-timer/actions/cancel")
                        .param("task", TASK)
                        .param("key", "order-forged")
                        .param("wt-token", "guessed")
                        .with(remote()))
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

        mvc.perform(post("/wheel-timer/actions/cancel")
                        .param("task", TASK)
                        .param("key", "order-cancel")
                        .param("wt-token", token.group(1))
                        .with(remote()))
                .andExpect(status().isSeeOther());
        mvc.perform(post("/wheel-timer/actions/run-now")
                        .param("task", TASK)
                        .param("key", "order-run-now")
                        .param("wt-token", token.group(1))
                        .with(remote()))
                .andExpect(status().isSeeOther());
        mvc.perform(post("/wheel-timer/actions/cancel")
                        .param("task", TASK)
                        .param("key", "order-cancel")
                        .param("wt-token", token.group(1))
                        .with(remote()))
                .andExpect(status().isNotFound());

        assertThat(durable.find(TASK, "order-cancel")).isEmpty();
        await().atMost(Duration.ofSeconds(30)).until(() -> payments.ran.contains("order-run-now"));
        assertThat(payments.ran).doesNotContain("order-cancel");
    }

    @Test
    void anUnknownActionIsABadRequest() throws Exception {
        durable.schedule(TASK, "order-x", Duration.ofHours(1));
        Matcher token = TOKEN.matcher(pendingPage());
        assertThat(token.find()).isTrue();
        mvc.perform(post("/wheel-timer/actions/explode")
                        .param("task", TASK)
                        .param("key", "order-x")
                        .param("wt-token", token.group(1))
                        .with(remote()))
                .andExpect(status().isBadRequest());
        assertThat(durable.find(TASK, "order-x")).isPresent();
        durable.cancel(TASK, "order-x");
    }
}
