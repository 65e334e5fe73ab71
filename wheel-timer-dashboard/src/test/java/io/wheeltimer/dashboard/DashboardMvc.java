package io.wheeltimer.dashboard;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.RequestBuilder;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.RequestPostProcessor;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * The dashboard of a test's application through MockMvc, new for each test ({@code @RegisterExtension}), and
 * what its tests send: requests from an address, pages read whole, writes.
 */
final class DashboardMvc implements BeforeEachCallback {

    private MockMvc mvc;

    @Override
    public void beforeEach(ExtensionContext context) {
        mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) SpringExtension.getApplicationContext(context))
                .build();
    }

    ResultActions perform(RequestBuilder request) throws Exception {
        return mvc.perform(request);
    }

    /** The page {@code request} gets, which must answer 200. */
    String page(RequestBuilder request) throws Exception {
        return mvc.perform(request)
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
    }

    /** Has a request come from {@code address}, as the dashboard's access rules see it. */
    static RequestPostProcessor from(String address) {
        return request -> {
            request.setRemoteAddr(address);
            return request;
        };
    }

    /** A write, {@code action} on the timeout {@code key} of the test application's task; no token yet. */
    static MockHttpServletRequestBuilder write(String action, String key) {
        return post("/wheel-timer/actions/" + action)
                .param("task", DashboardTestApplication.TASK)
                .param("key", key);
    }
}
