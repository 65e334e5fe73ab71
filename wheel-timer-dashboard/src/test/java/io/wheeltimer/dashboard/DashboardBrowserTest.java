package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.TimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The dashboard as a user sees it, in headless Chromium, with writes allowed: finding a timeout by key,
 * a due timeout leaving the pending count and entering the lateness figures without a reload, and
 * retrying and discarding given-up timeouts from their list.
 */
@SpringBootTest(
        classes = DashboardTestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"wheel-timer.dashboard.read-only=false", "wheel-timer.dashboard.refresh=200ms"})
class DashboardBrowserTest {

    private static final String TASK = DashboardTestApplication.TASK;
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @RegisterExtension
    static final Browser browser = new Browser();

    @Autowired
    JdbcDurableTimer durable;

    @Autowired
    DashboardTestApplication.Payments payments;

    @Autowired
    HashedWheelTimer wheel;

    /** An in-memory timeout, as the wheel lists it. */
    record ReminderTask(String session) implements TimerTask {
        @Override
        public void run(Timeout timeout) {}

        @Override
        public String toString() {
            return "SessionReminder(" + session + ")";
        }
    }

    private WebElement taskRow(String task) {
        return browser.driver.findElement(By.cssSelector("[data-testid=durable-task][data-task='" + task + "']"));
    }

    /**
     * A figure of a task's row, read in one script call: the figures are swapped at every refresh, so
     * an element found by one call may be gone by the next.
     */
    private String figure(String task, String testId) {
        Object text = browser.driver.executeScript(
                "const e = document.querySelector(`[data-testid=durable-task][data-task='${arguments[0]}']"
                        + " [data-testid=${arguments[1]}]`); return e === null ? null : e.textContent;",
                task,
                testId);
        assertThat(text).as("%s of %s", testId, task).isNotNull();
        return text.toString();
    }

    /** Types {@code key} into the look-up form, in place of what is there, and submits it. */
    private static void lookUp(String key) {
        WebElement field = browser.driver.findElement(By.cssSelector("[data-testid=lookup-key]"));
        field.clear();
        field.sendKeys(key);
        browser.driver
                .findElement(By.cssSelector("[data-testid=lookup-submit]"))
                .click();
    }

    @Test
    void findsATimeoutByTaskAndKey() {
        durable.schedule(TASK, "order-lookup", Duration.ofHours(2), "{\"card\":\"4111\"}");
        browser.load("");

        browser.driver.findElement(By.cssSelector("[data-testid=lookup-task]")).sendKeys(TASK);
        lookUp("order-lookup");

        await().atMost(PATIENCE).ignoreExceptions().untilAsserted(() -> {
            WebElement result = browser.driver.findElement(By.cssSelector("[data-testid=lookup-result]"));
            WebElement row = result.findElement(By.cssSelector("[data-key='order-lookup']"));
            assertThat(row.findElement(By.cssSelector("[data-testid=timeout-state]"))
                            .getText())
                    .isEqualTo("pending");
            assertThat(row.findElement(By.cssSelector("[data-testid=timeout-data]"))
                            .getText())
                    .as("data is masked by default")
                    .isEqualTo("******");
        });

        lookUp("no-such-order");
        // The submit loads a new page: the old page's result may be found (then go stale) before it.
        await().atMost(PATIENCE)
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(browser.driver
                                .findElement(By.cssSelector("[data-testid=lookup-result]"))
                                .getText())
                        .isEqualTo("none"));
        durable.cancel(TASK, "order-lookup");
    }

    @Test
    void aDueTimeoutLeavesThePendingCountAndEntersTheLatenessFiguresWithoutAReload() {
        await().atMost(PATIENCE).until(() -> durable.pending(TASK, 10).isEmpty());
        durable.schedule(TASK, "order-due", Instant.now().plusSeconds(4));
        browser.load("");
        assertThat(figure(TASK, "pending-count")).isEqualTo("1");
        long latenessBefore = Long.parseLong(figure(TASK, "lateness-count"));
        // A mark on this page's window: a reload would lose it.
        browser.driver.executeScript("window.dashboardNotReloaded = true;");

        await().atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    assertThat(figure(TASK, "pending-count")).isEqualTo("0");
                    assertThat(Long.parseLong(figure(TASK, "lateness-count"))).isEqualTo(latenessBefore + 1);
                });
        assertThat(Long.parseLong(figure(TASK, "lateness-p50"))).isGreaterThanOrEqualTo(0);
        assertThat(browser.driver.executeScript("return window.dashboardNotReloaded === true;"))
                .as("the figures changed in place, without a reload")
                .isEqualTo(true);
    }

    @Test
    void retriesAndDiscardsGivenUpTimeoutsFromTheirList() {
        payments.giveUp(durable, "order-retry", "order-discard");

        browser.load("");
        assertThat(Long.parseLong(figure(TASK, "failed-count"))).isGreaterThanOrEqualTo(2);
        // The figures are swapped at every refresh: click the link of the row as it is now.
        click(() -> taskRow(TASK), "failed-link");
        // Each click posts a form and loads the list again: the rows are read from the page it loads.
        click(() -> failedRow("order-retry"), "retry");
        awaitNoLongerListed("order-retry");
        await().atMost(PATIENCE).until(() -> payments.ran.contains("order-retry"));

        click(() -> failedRow("order-discard"), "discard");
        awaitNoLongerListed("order-discard");
        assertThat(durable.findFailed(TASK, "order-discard")).isEmpty();
        assertThat(durable.find(TASK, "order-discard")).isEmpty();
        assertThat(payments.ran).doesNotContain("order-discard");
    }

    /** Clicks the control {@code testId} of the row {@code row} finds, retried until the row is there to click. */
    private static void click(Supplier<WebElement> row, String testId) {
        await().atMost(PATIENCE).ignoreExceptions().until(() -> {
            row.get()
                    .findElement(By.cssSelector("[data-testid=" + testId + "]"))
                    .click();
            return true;
        });
    }

    private static void awaitNoLongerListed(String key) {
        await().atMost(PATIENCE)
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(browser.driver.findElements(By.cssSelector("[data-key='" + key + "']")))
                        .as("%s no longer given up", key)
                        .isEmpty());
    }

    private WebElement failedRow(String key) {
        List<WebElement> rows = browser.driver.findElements(
                By.cssSelector("[data-testid=timeout-list] [data-testid=timeout][data-key='" + key + "']"));
        assertThat(rows).as("given-up row of %s", key).hasSize(1);
        return rows.get(0);
    }

    @Test
    void aPopulatedOverviewIsPhotographed() throws IOException {
        payments.giveUp(durable, "order-given-up");
        for (int i = 0; i < 120; i++) {
            durable.schedule(TASK, "order-" + (1000 + i), Duration.ofSeconds(20L + i * 37L % 3600));
        }
        for (int i = 0; i < 8; i++) {
            durable.schedule(TASK, "order-soon-" + i, Duration.ofMillis(300 + i * 150L));
        }
        await().atMost(PATIENCE).until(() -> payments.ran.contains("order-soon-7"));
        for (int i = 0; i < 5; i++) {
            wheel.newTimeout(new ReminderTask("session-" + i), 30 + i * 7L, TimeUnit.MINUTES);
        }
        browser.load("");

        byte[] png = browser.driver.getScreenshotAs(OutputType.BYTES);
        Path shot = Path.of("target", "dashboard.png");
        Files.write(shot, png);
        assertThat(png.length).isGreaterThan(10_000);
        assertThat(Long.parseLong(figure(TASK, "lateness-count"))).isGreaterThanOrEqualTo(8);
        assertThat(browser.driver.findElements(By.cssSelector(
                        "[data-testid=wheel][data-name=wheelTimer]" + " [data-testid=wheel-upcoming] li")))
                .hasSizeGreaterThanOrEqualTo(5);
        for (int i = 0; i < 120; i++) {
            durable.cancel(TASK, "order-" + (1000 + i));
        }
        durable.discard(TASK, "order-given-up");
    }
}
