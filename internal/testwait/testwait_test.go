package testwait

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

func TestRecv(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if got := Recv(t, ch, "a value"); got != 7 {
		t.Fatalf("Recv = %d", got)
	}
	done := make(chan struct{})
	close(done)
	Recv(t, done, "a closed channel")
}

func TestWithEnv(t *testing.T) {
	kv := "TESTWAIT_MARK=" + t.Name() + "-" + strconv.Itoa(os.Getpid())
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), kv)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if got := WithEnv(kv); len(got) != 1 || got[0] != cmd.Process.Pid {
		t.Fatalf("WithEnv = %v, want [%d]", got, cmd.Process.Pid)
	}
	if got := WithEnv(kv + "x"); len(got) != 0 {
		t.Fatalf("WithEnv of a longer value = %v", got)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := WithEnv(kv); len(got) != 0 {
		t.Fatalf("WithEnv after the kill = %v", got)
	}
}
