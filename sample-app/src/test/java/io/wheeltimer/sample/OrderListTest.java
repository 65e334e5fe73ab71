package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code GET /orders} answers one page at a time, newest first: {@code page} from 0, {@code size}
 * from 1 to 500 (default 50), with the total count; out-of-range or non-numeric values are a 400 that
 * names the parameter.
 */
@SampleWebTest(properties = {"spring.datasource.url=jdbc:h2:file:./target/test-db/list-${random.uuid}"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrderListTest {

    private Api api;

    /** Ids of the orders placed, oldest first. */
    private final List<String> placed = new ArrayList<>();

    @BeforeAll
    void placeFiveOrders(Api api) {
        this.api = api;
        for (int i = 0; i < 5; i++) {
            placed.add(api.place("item " + i));
        }
    }

    private List<String> newestFirst() {
        List<String> ids = new ArrayList<>(placed);
        Collections.reverse(ids);
        return ids;
    }

    @Test
    void theFirstPageHoldsUpTo50NewestFirst() {
        DocumentContext page = JsonPath.parse(api.get("/orders").body());
        assertThat(page.<List<String>>read("$.orders[*].id")).containsExactlyElementsOf(newestFirst());
        assertThat(page.<Integer>read("$.page")).isZero();
        assertThat(page.<Integer>read("$.size")).isEqualTo(50);
        assertThat(page.<Integer>read("$.totalElements")).isEqualTo(5);
    }

    @Test
    void pagesSplitTheOrdersWithoutOverlap() {
        List<String> seen = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            DocumentContext page =
                    JsonPath.parse(api.get("/orders?page=" + p + "&size=2").body());
            assertThat(page.<Integer>read("$.page")).isEqualTo(p);
            assertThat(page.<Integer>read("$.size")).isEqualTo(2);
            assertThat(page.<Integer>read("$.totalElements")).isEqualTo(5);
            seen.addAll(page.read("$.orders[*].id"));
        }
        assertThat(seen).containsExactlyElementsOf(newestFirst());
        assertThat(JsonPath.<List<String>>read(api.get("/orders?page=3&size=2").body(), "$.orders"))
                .isEmpty();
    }

    @Test
    void aSizeOf500IsAllowedAndTheWholePageComesBack() {
        assertThat(JsonPath.<List<String>>read(api.get("/orders?size=500").body(), "$.orders[*].id"))
                .hasSize(5);
    }

    @Test
    void aSizeOutOfRangeIsA400NamingTheParameterAndWhatIsAllowed() {
        assertProblem(api.get("/orders?size=501"), 400, "\"size\" is 501; it must be a whole number from 1 to 500");
        assertProblem(api.get("/orders?size=0"), 400, "\"size\" is 0; it must be a whole number from 1 to 500");
        assertProblem(api.get("/orders?size=ten"), 400, "\"size\" is ten; it must be a whole number from 1 to 500");
    }

    @Test
    void aNegativeOrNonNumericPageIsA400NamingTheParameter() {
        assertProblem(api.get("/orders?page=-1"), 400, "\"page\" is -1; it must be a whole number from 0");
        assertProblem(api.get("/orders?page=1.5"), 400, "\"page\" is 1.5; it must be a whole number from 0");
    }
}
