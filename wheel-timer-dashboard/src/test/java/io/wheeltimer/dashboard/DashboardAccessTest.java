package io.wheeltimer.dashboard;

import static io.wheeltimer.dashboard.DashboardMvc.from;
import static io.wheeltimer.dashboard.DashboardMvc.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.testsupport.CountingDataSource;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * With the defaults (read-only, loopback only, data never shown): who is refused, that no write
 * control is rendered and a forged write changes nothing, and what one look at the overview costs.
 */
@SpringBootTest(classes = DashboardTestApplication.class)
@Import(DashboardAccessTest.Counting.class)
class DashboardAccessTest {

    private static final String TASK = DashboardTestApplication.TASK;

    /** Every statement the application runs, with the thread that ran it. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Counting {
        @Bean
        static BeanPostProcessor countingDataSource() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof DataSource d && !(bean instanceof CountingDataSource)
                            ? CountingDataSource.recording(d)
                            : bean;
                }
            };
        }
    }

    @Autowired
    JdbcDurableTimer durable;

    @Autowired
    DashboardTestApplication.Payments payments;

    @Autowired
    DataSource dataSource;

    @RegisterExtension
    final DashboardMvc mvc = new DashboardMvc();

    @Test
    void aRemoteRequestIsRefusedAndALoopbackOneAnswered() throws Exception {
        mvc.perform(get("/wheel-timer").with(from("203.0.113.9")))
                .andExpect(status().isForbidden())
                .andExpect(content().string(org.hamcrest.Matchers.containsString("loopback")));
        mvc.perform(get("/wheel-timer/api/figures").with(from("10.0.0.1"))).andExpect(status().isForbidden());
        mvc.perform(get("/wheel-timer").with(from("127.0.0.1"))).andExpect(status().isOk());
        mvc.perform(get("/wheel-timer").with(from("0:0:0:0:0:0:0:1"))).andExpect(status().isOk());
    }

    @Test
    void readOnlyRendersNoWriteControlAndAForgedWriteChangesNothing() throws Exception {
        payments.giveUp(durable, "order-read-only");
        durable.schedule(TASK, "order-pending", Duration.ofHours(1));

        String failedPage =
                mvc.page(get("/wheel-timer/failed").param("task", TASK).with(from("127.0.0.1")));
        String pendingPage =
                mvc.page(get("/wheel-timer/pending").param("task", TASK).with(from("127.0.0.1")));
        assertThat(failedPage).contains("data-key=\"order-read-only\"").doesNotContain("<form method=\"post\"");
        assertThat(pendingPage).contains("data-key=\"order-pending\"").doesNotContain("<form method=\"post\"");
        assertThat(failedPage).as("the last error is masked").contains("******").doesNotContain("service down");

        for (String action : List.of("discard", "retry")) {
            mvc.perform(write(action, "order-read-only").with(from("127.0.0.1")))
                    .andExpect(status().isForbidden());
        }
        mvc.perform(write("cancel", "order-pending").with(from("127.0.0.1"))).andExpect(status().isForbidden());
        assertThat(durable.findFailed(TASK, "order-read-only")).isPresent();
        assertThat(durable.find(TASK, "order-pending")).isPresent();
        durable.discard(TASK, "order-read-only");
        durable.cancel(TASK, "order-pending");
    }

    @Test
    void oneRefreshOfTheOverviewRunsAtMostThreeBoundedStatements() throws Exception {
        durable.schedule(TASK, "order-counted", Duration.ofMinutes(5));
        CountingDataSource counting = (CountingDataSource) dataSource;
        mvc.perform(get("/wheel-timer/api/figures").with(from("127.0.0.1"))).andExpect(status().isOk());
        String thread = Thread.currentThread().getName();
        counting.clear();

        String figures = mvc.page(get("/wheel-timer/api/figures").with(from("127.0.0.1")));

        List<String> mine = counting.executed().stream()
                .filter(e -> e.thread().equals(thread))
                .map(CountingDataSource.Executed::sql)
                .toList();
        assertThat(figures).contains("data-testid=\"durable-task\" data-task=\"" + TASK + "\"");
        assertThat(mine).hasSizeLessThanOrEqualTo(3);
        assertThat(mine).allSatisfy(sql -> assertThat(sql).containsAnyOf("LIMIT", "due_at >= ?"));
        durable.cancel(TASK, "order-counted");
    }

    @Test
    void nothingIsReadWhileNobodyLooks() {
        CountingDataSource counting = (CountingDataSource) dataSource;
        counting.clear();
        // The durable timer polls every 100 ms: wait for a few of its statements, and find none of the dashboard's.
        await().atMost(Duration.ofSeconds(30)).until(() -> counting.executed().size() >= 20);
        assertThat(counting.executed())
                .extracting(CountingDataSource.Executed::sql)
                .noneMatch(sql -> sql.contains("AS locked") || sql.contains("due_minute") || sql.contains("OFFSET"));
    }
}
