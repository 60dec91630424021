<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>Knobs</name>
    <message>
        <source>Token budget of one step (prefill chunks + decode tokens): smaller gives smoother ITL, larger gives faster TTFT but decodes wait behind big prefill steps</source>
        <translation>1ステップのトークン予算（プリフィルのチャンク＋デコードトークン）。小さいほどITLが滑らかになり、大きいほどTTFTは速くなるが、デコードが大きなプリフィルステップの後ろで待たされる</translation>
    </message>
    <message>
        <source>default</source>
        <translation>デフォルト</translation>
    </message>
    <message>
        <source>vLLM&apos;s default for the device: 2048 on CPU, 2048 or 8192 on a GPU</source>
        <translation>デバイスごとのvLLMのデフォルト：CPUでは2048、GPUでは2048または8192</translation>
    </message>
    <message>
        <source>Most requests in one step: more gives higher throughput (decode is memory-bound) but more KV memory in use and more preemption</source>
        <translation>1ステップに入るリクエストの最大数。多いほどスループットは上がる（デコードはメモリ帯域律速）が、使用中のKVメモリとプリエンプションが増える</translation>
    </message>
    <message>
        <source>vLLM&apos;s default for the device: 128 on CPU, 256 or 1024 on a GPU</source>
        <translation>デバイスごとのvLLMのデフォルト：CPUでは128、GPUでは256または1024</translation>
    </message>
    <message>
        <source>Cut long prompts into chunks that ride along with decodes, so a long prompt never stalls generation; off: a prompt must fit the budget whole</source>
        <translation>長いプロンプトをチャンクに分け、デコードと同じステップに相乗りさせる。長いプロンプトが生成を止めることはない。オフ：プロンプトは予算に丸ごと収まる必要がある</translation>
    </message>
    <message>
        <source>Reuse KV blocks of identical prompt prefixes (system prompts, shared documents): saves prefill compute and TTFT, costs nothing without reuse</source>
        <translation>同一のプロンプトプレフィックス（システムプロンプト、共有ドキュメント）のKVブロックを再利用する。プリフィルの計算とTTFTを節約し、再利用がなければコストはかからない</translation>
    </message>
    <message>
        <source>A prompt longer than this gets at most this many tokens per step, so long prompts cannot starve short ones</source>
        <translation>これより長いプロンプトは1ステップあたり最大この数のトークンしか得られず、長いプロンプトが短いプロンプトを飢餓状態にすることを防ぐ</translation>
    </message>
    <message>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <source>fcfs: first come, first served, preemption takes the newest request; priority: lower value first, preemption takes the lowest priority</source>
        <translation>fcfs：先着順。プリエンプションは最も新しいリクエストを対象にする。priority：値の小さいものが先。プリエンプションは優先度の最も低いものを対象にする</translation>
    </message>
    <message>
        <source>Longest prompt + output accepted; longer requests are rejected, and a shorter limit needs less KV memory</source>
        <translation>受け付けるプロンプト＋出力の最大長。これより長いリクエストは拒否される。上限を短くするとKVメモリが少なくて済む</translation>
    </message>
    <message>
        <source>model max</source>
        <translation>モデルの最大値</translation>
    </message>
    <message>
        <source>the model&apos;s max_position_embeddings</source>
        <translation>モデルの max_position_embeddings</translation>
    </message>
    <message>
        <source>Admit a request only if KV blocks for its whole prompt are free now: fewer admissions under memory pressure, but no admit-then-preempt thrashing</source>
        <translation>プロンプト全体のKVブロックが今空いている場合にのみリクエストを受け入れる。メモリ逼迫時の受け入れは減るが、受け入れてはプリエンプトするスラッシングが起きない</translation>
    </message>
    <message>
        <source>Speculative decoding: a proposer guesses num_speculative_tokens tokens, one target pass verifies them; faster decode for a few requests when drafts are accepted, lost throughput for a full batch</source>
        <translation>投機的デコーディング：プロポーザーが num_speculative_tokens 個のトークンを推測し、ターゲットモデルの1回のパスで検証する。ドラフトが受理されれば少数のリクエストのデコードが速くなるが、バッチが満杯のときはスループットが落ちる</translation>
    </message>
    <message>
        <source>a draft model switch, or its num_speculative_tokens</source>
        <translation>ドラフトモデルの切り替え、またはその num_speculative_tokens</translation>
    </message>
    <message>
        <source>Tokens per KV block: smaller wastes less memory in each request&apos;s last block and shares prefixes finer; larger means fewer blocks to manage</source>
        <translation>KVブロックあたりのトークン数。小さいほど各リクエストの最後のブロックで無駄になるメモリが減り、プレフィックスを細かく共有できる。大きいほど管理するブロック数が減る</translation>
    </message>
    <message>
        <source>Memory for the KV cache: it bounds the context all running requests hold together; too little means preemptions under load</source>
        <translation>KVキャッシュ用のメモリ。実行中の全リクエストが合わせて保持できるコンテキストの上限を決める。少なすぎると負荷時にプリエンプションが起きる</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自動</translation>
    </message>
    <message>
        <source>the backend&apos;s default budget</source>
        <translation>バックエンドのデフォルト予算</translation>
    </message>
    <message>
        <source>Force the number of KV blocks (overrides the memory budget): a small cache provokes preemption you can watch in the KV map</source>
        <translation>KVブロック数を強制する（メモリ予算より優先）。小さなキャッシュではプリエンプションが起き、KVマップで観察できる</translation>
    </message>
    <message>
        <source>unset</source>
        <translation>未設定</translation>
    </message>
    <message>
        <source>from the memory budget</source>
        <translation>メモリ予算から算出</translation>
    </message>
    <message>
        <source>Where the forward pass runs: auto = CUDA when a device is present, else CPU; sim = no weights run: the real scheduler and KV cache on a virtual clock, each step&apos;s time predicted for sim_hardware</source>
        <translation>フォワードパスを実行する場所。auto = デバイスがあればCUDA、なければCPU。sim = 重みを実行しない：実際のスケジューラとKVキャッシュを仮想時計上で動かし、各ステップの時間を sim_hardware について予測する</translation>
    </message>
    <message>
        <source>CPU backend: worker threads of the forward pass; more than the physical cores rarely helps</source>
        <translation>CPUバックエンド：フォワードパスのワーカースレッド数。物理コア数を超えてもほとんど効果はない</translation>
    </message>
    <message>
        <source>all cores</source>
        <translation>全コア</translation>
    </message>
    <message>
        <source>CUDA backend: share of the device memory the engine may use; the KV cache gets what weights and activations leave</source>
        <translation>CUDAバックエンド：エンジンが使えるデバイスメモリの割合。KVキャッシュには重みとアクティベーションの残りが割り当てられる</translation>
    </message>
    <message>
        <source>Quantize the weights at load (CPU backend): q8_0 about halves and q4_k about quarters the weight memory that every decode step reads, at some accuracy</source>
        <translation>ロード時に重みを量子化する（CPUバックエンド）。q8_0 は約半分、q4_k は約4分の1に、各デコードステップが読む重みメモリを減らす。精度は多少落ちる</translation>
    </message>
    <message>
        <source>Sim backend: the simulated device, a hardware preset (h100-sxm, a100-80gb, ...) or the path of a profile file that `llm-workbench calibrate` wrote; sets the memory the KV pool is sized from and every step&apos;s predicted time</source>
        <translation>simバックエンド：シミュレートするデバイス。ハードウェアプリセット（h100-sxm、a100-80gb など）か、`llm-workbench calibrate` が書いたプロファイルファイルのパス。KVプールのサイズの元になるメモリと、各ステップの予測時間を決める</translation>
    </message>
    <message>
        <source>Sim backend: devices one model is sharded over; each holds 1/N of the weights and KV heads (more blocks, faster steps) and pays two all-reduces per layer</source>
        <translation>simバックエンド：1つのモデルを分割するデバイス数。各デバイスは重みとKVヘッドの1/Nを持ち（ブロックが増え、ステップが速くなる）、層ごとに2回のall-reduceを払う</translation>
    </message>
    <message>
        <source>Prefill/decode disaggregation: the connector that copies each prefilled request&apos;s KV blocks from the prefill instance to the decode instance. bench --pd P:D: PdInProcessConnector and the simulated link it crosses (kv_connector_extra_config.link: nvlink, infiniband, roce). serve: TcpConnector, kv_role kv_producer (listens on kv_ip:kv_port) or kv_consumer, behind llm-workbench proxy. Decode steps no longer wait behind long prefills, at the cost of the transfer and of two instances&apos; memory</source>
        <translation>プリフィル／デコード分離：プリフィル済みの各リクエストのKVブロックをプリフィルインスタンスからデコードインスタンスへコピーするコネクタ。bench --pd P:D：PdInProcessConnector と、それが通るシミュレートされたリンク（kv_connector_extra_config.link：nvlink、infiniband、roce）。serve：TcpConnector、kv_role は kv_producer（kv_ip:kv_port で待ち受ける）または kv_consumer で、llm-workbench proxy の背後に置く。デコードステップは長いプリフィルの後ろで待たなくなるが、転送と2インスタンス分のメモリのコストがかかる</translation>
    </message>
    <message>
        <source>Element type of the KV cache: bfloat16 halves the bytes per KV block, so the same memory holds 2x the blocks (fewer preemptions) and decode attention reads half the bytes, at a small accuracy cost (K/V rounded to 8 mantissa bits). fp8 (= fp8_e4m3: 3 mantissa bits, values up to 448) and fp8_e5m2 (2 mantissa bits, up to 57344) quarter them, at a larger cost; as in vLLM without calibration the scale is 1, so larger K/V values saturate. CPU backend only. auto: on the CPU backend float32 for float weights (its attention math is f32 and the golden outputs stay bit-identical; vLLM&apos;s auto follows the model dtype) and bfloat16 for quantized ones (they have no float dtype to follow; llama.cpp keeps its cache in 16 bits), the model&apos;s activation dtype on CUDA</source>
        <translation>KVキャッシュの要素型。bfloat16 はKVブロックあたりのバイト数を半分にするため、同じメモリに2倍のブロックが入り（プリエンプションが減る）、デコードのアテンションが読むバイト数も半分になる。精度のコストは小さい（K/Vは仮数部8ビットに丸められる）。fp8（= fp8_e4m3：仮数部3ビット、値は448まで）と fp8_e5m2（仮数部2ビット、57344まで）は4分の1にするが、コストは大きい。vLLMと同様にキャリブレーションなしではスケールは1なので、大きなK/V値は飽和する。CPUバックエンドのみ。auto：CPUバックエンドでは浮動小数点の重みなら float32（アテンションの計算が f32 で、ゴールデン出力がビット単位で一致したまま。vLLMの auto はモデルの dtype に従う）、量子化された重みなら bfloat16（従うべき浮動小数点の dtype がなく、llama.cpp もキャッシュを16ビットで持つ）、CUDAではモデルのアクティベーションの dtype</translation>
    </message>
</context>
<context>
    <name>Lessons</name>
    <message>
        <source>stayed at about %1</source>
        <translation>ほぼ %1 のまま</translation>
    </message>
    <message>
        <source>rose from %1 to %2 (%3)</source>
        <translation>%1 から %2 に上昇（%3）</translation>
    </message>
    <message>
        <source>fell from %1 to %2 (%3)</source>
        <translation>%1 から %2 に低下（%3）</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1%2</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1、%2</translation>
    </message>
    <message>
        <source>The run had no pure decode step or no large prefill step to compare; run the lesson at full size.</source>
        <translation>比較できる純粋なデコードステップ、または大きなプリフィルステップがありませんでした。レッスンをフルサイズで実行してください。</translation>
    </message>
    <message>
        <source>A decode step of %1 tokens took %2 ms (%3 us per token); a prefill step of %4 tokens took %5 us per token.</source>
        <translation>%1 トークンのデコードステップは %2 ms（1 トークンあたり %3 us）、%4 トークンのプリフィルステップは 1 トークンあたり %5 us でした。</translation>
    </message>
    <message>
        <source>Per token, prefill was %1 cheaper: a decode step reads all the weights (and its KV) once however few tokens it computes, so its time is set by memory bandwidth; a prefill step spreads that read over hundreds of tokens and keeps the compute units busy. Batching decodes is how an engine recovers the difference. See Batch composition: the step duration against the tokens each step computed.</source>
        <translation>1 トークンあたりではプリフィルの方が %1 安く済みました。デコードステップは計算するトークンが少なくても重み全体（と KV）を一度読み込むため、時間はメモリ帯域で決まります（メモリバウンド）。プリフィルステップはその読み込みを数百トークンに分散し、演算器を忙しく保ちます（計算バウンド）。この差を取り戻す手段がデコードのバッチ化です。バッチ構成（Batch composition）ビューで、ステップ時間と各ステップで計算したトークン数の関係を確認してください。</translation>
    </message>
    <message>
        <source>Per token the two cost about the same (%1), so the expected gap did not appear here: on this device even a decode step is bound by compute (the weights fit in the caches, or the batch is already large). See Batch composition.</source>
        <translation>1 トークンあたりのコストは両者ほぼ同じ（%1）で、期待した差はここでは現れませんでした。このデバイスではデコードステップも計算バウンドです（重みがキャッシュに収まっているか、バッチがすでに大きい）。バッチ構成（Batch composition）ビューを参照してください。</translation>
    </message>
    <message>
        <source>With %1 KV blocks (%2 tokens) instead of %3, the engine preempted %4 times (%5 with the larger pool), median TTFT %6 and output throughput %7.</source>
        <translation>KV ブロックを %3 個ではなく %1 個（%2 トークン）にすると、エンジンのプリエンプションは %4 回（大きいプールでは %5 回）、TTFT の中央値は %6、出力スループットは %7 でした。</translation>
    </message>
    <message>
        <source>A pool that cannot hold the whole running batch turns load into queueing (requests wait for blocks) and preemption (a running request gives its blocks back and recomputes later). See the KV block map (red: preempted) and Batch composition (waiting).</source>
        <translation>実行中のバッチ全体を保持できない KV キャッシュは、負荷をキューイング（リクエストがブロックを待つ）とプリエンプション（実行中のリクエストがブロックを返し、後で再計算する）に変えます。KV ブロックマップ（KV block map、赤：プリエンプション）とバッチ構成（Batch composition、待機中）を参照してください。</translation>
    </message>
    <message>
        <source>The small pool still held the batch, so the expected queueing and preemption did not happen here; a heavier load or a smaller pool would show it.</source>
        <translation>小さいプールでもバッチが収まったため、期待したキューイングとプリエンプションはここでは起きませんでした。より重い負荷か、より小さいプールなら現れるはずです。</translation>
    </message>
    <message>
        <source>From %1 to %2, total output throughput %3, while one request&apos;s decode speed %4.</source>
        <translation>%1 から %2 にすると、全体の出力スループットは %3、一方で 1 リクエストのデコード速度は %4 でした。</translation>
    </message>
    <message>
        <source>A decode step costs about the same for one request as for several (it reads the weights once), so batching multiplies the engine&apos;s throughput without making any single request faster. See Batch composition (decode tokens per step) and Latency (ITL).</source>
        <translation>デコードステップのコストは 1 リクエストでも複数でもほぼ同じです（重みの読み込みは 1 回）。そのためバッチ化はエンジンのスループットを何倍にもしますが、個々のリクエストは速くなりません。バッチ構成（Batch composition、ステップあたりのデコードトークン）とレイテンシ（Latency、ITL）を参照してください。</translation>
    </message>
    <message>
        <source>Throughput did not rise with the batch in this run, so the expected effect did not happen: each step&apos;s cost grew with its batch, as on a device already bound by compute (or a busy machine).</source>
        <translation>この実行ではバッチを大きくしてもスループットが上がらず、期待した効果は起きませんでした。すでに計算バウンドなデバイス（または負荷の高いマシン）のように、各ステップのコストがバッチとともに増えました。</translation>
    </message>
    <message>
        <source>With %1 instead of %2, p99 inter-token latency %3 and median TTFT %4.</source>
        <translation>%2 ではなく %1 にすると、p99 のトークン間レイテンシ（ITL）は %3、TTFT の中央値は %4 でした。</translation>
    </message>
    <message>
        <source>A smaller token budget cuts each long prompt into chunks, so the running requests&apos; decode steps no longer wait behind a whole prompt (lower ITL spikes), and each prompt takes more steps to finish (higher TTFT): the budget is a dial between the two. See Batch composition (prefill chunks against the budget line) and Latency (ITL).</source>
        <translation>トークン予算を小さくするとチャンク化プリフィルで長いプロンプトが分割され、実行中のリクエストのデコードステップはプロンプト全体を待たなくなります（ITL のスパイクが減る）。その代わり各プロンプトの完了にはより多くのステップがかかります（TTFT が増える）。予算は両者を調整するダイヤルです。バッチ構成（Batch composition、予算ラインに対するプリフィルチャンク）とレイテンシ（Latency、ITL）を参照してください。</translation>
    </message>
    <message>
        <source>The ITL spikes did not shrink in this run, so the expected effect did not appear: either a whole prompt&apos;s prefill costs little next to a decode step on this device, or other work on the machine hid it (run the lesson again, or at full size, to tell which).</source>
        <translation>この実行では ITL のスパイクが小さくならず、期待した効果は現れませんでした。このデバイスではプロンプト全体のプリフィルがデコードステップに比べて安いか、マシン上の他の処理に隠れたかのどちらかです（どちらかを見分けるには、レッスンをもう一度、またはフルサイズで実行してください）。</translation>
    </message>
    <message>
        <source>With prefix caching on, %1 % of the prompt tokens came from the cache, and median TTFT was %2 against %3 with it off (%4).</source>
        <translation>プレフィックスキャッシュを有効にすると、プロンプトトークンの %1 % がキャッシュから得られ、TTFT の中央値は無効時の %3 に対して %2 でした（%4）。</translation>
    </message>
    <message>
        <source>The tokens it computed anyway missed for these reasons: %1.</source>
        <translation>それでも計算したトークンがミスした理由：%1。</translation>
    </message>
    <message>
        <source>A shared system prompt is computed once and its KV blocks reused by every request that starts with it: the prefill of a hit costs nothing. See Prefix cache (hit rate and misses by reason).</source>
        <translation>共有のシステムプロンプトは一度だけ計算され、その KV ブロックは同じ先頭を持つすべてのリクエストで再利用されます。ヒットした部分のプリフィルのコストはゼロです。プレフィックスキャッシュ（Prefix cache、ヒット率と理由別のミス）を参照してください。</translation>
    </message>
    <message>
        <source>The cache did not shorten TTFT here, so the expected effect did not happen; the reasons above say why the prefix was not reused.</source>
        <translation>ここではキャッシュで TTFT が短くならず、期待した効果は起きませんでした。プレフィックスが再利用されなかった理由は上に示したとおりです。</translation>
    </message>
    <message>
        <source>The lesson needs a run with speculation and one without.</source>
        <translation>このレッスンには投機的デコードありの実行となしの実行が必要です。</translation>
    </message>
    <message>
        <source>With one request at a time, %1 % of the draft tokens were accepted (mean acceptance length %2 tokens per verification) and the request&apos;s decode speed %3.</source>
        <translation>1 リクエストずつ処理すると、ドラフトトークンの %1 % が受理され（平均受理長は検証 1 回あたり %2 トークン）、リクエストのデコード速度は %3 でした。</translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation>%2 で %1</translation>
    </message>
    <message>
        <source>Total output throughput with speculation against without: %1.</source>
        <translation>投機的デコードなしに対するありの全体出力スループット：%1。</translation>
    </message>
    <message>
        <source>Speculation did not speed up even one request here, so the expected gain did not appear: too few drafts were accepted to pay for verifying them. See Speculative decoding (acceptance rate).</source>
        <translation>ここでは 1 リクエストでさえ投機的デコードで速くならず、期待した効果は現れませんでした。受理されたドラフトが少なすぎて、検証のコストに見合いませんでした。投機的デコード（Speculative decoding、受理率）を参照してください。</translation>
    </message>
    <message>
        <source>The gain was gone at %1: with many requests in a step the engine is no longer bound by reading the weights, so the draft positions each request verifies cost compute that the accepted tokens do not repay. Speculation pays while few requests share a step and costs throughput once the batch is full. See Speculative decoding (acceptance rate) and Batch composition.</source>
        <translation>%1 で効果はなくなりました。1 ステップに多くのリクエストが入るとエンジンは重みの読み込みに律速されなくなり、各リクエストが検証するドラフト位置の計算コストを、受理されたトークンで取り戻せなくなります。投機的デコードは 1 ステップを共有するリクエストが少ない間は得をし、バッチが埋まるとスループットを損ないます。投機的デコード（Speculative decoding、受理率）とバッチ構成（Batch composition）を参照してください。</translation>
    </message>
    <message>
        <source>The gain did not vanish up to %1, the highest load tried: on this device verifying the drafts still cost less than the steps they saved.</source>
        <translation>試した最大の負荷である %1 まで効果は消えませんでした。このデバイスでは、ドラフトの検証コストが節約したステップより依然として小さいということです。</translation>
    </message>
    <message>
        <source>The lesson needs the colocated run and the P/D run.</source>
        <translation>このレッスンには同居構成の実行と P/D の実行が必要です。</translation>
    </message>
    <message>
        <source>%1 against %2: p99 ITL %3, median TTFT (the KV transfer included) %4, total throughput %5.</source>
        <translation>%2 に対する %1：p99 ITL は %3、TTFT の中央値（KV 転送を含む）は %4、全体のスループットは %5。</translation>
    </message>
    <message>
        <source>The median KV transfer took %1.</source>
        <translation>KV 転送の中央値は %1 でした。</translation>
    </message>
    <message>
        <source>On the simulator the pair ran on two GPUs and the colocated engine on one: the pair had twice the hardware.</source>
        <translation>シミュレーターでは P/D のペアが 2 GPU、同居構成のエンジンが 1 GPU で動きました。ペアは 2 倍のハードウェアを使っています。</translation>
    </message>
    <message>
        <source>On the decode instance no prompt&apos;s prefill shares a step with the decodes, so the ITL spikes that chunked prefill only shortens are gone; the price was paid in TTFT (the prefill instance&apos;s queue and the transfer).</source>
        <translation>デコードインスタンスではプロンプトのプリフィルがデコードとステップを共有しないため、チャンク化プリフィルでは短くするだけだった ITL のスパイクがなくなりました。その代償は TTFT（プリフィルインスタンスのキューと転送）で払われました。</translation>
    </message>
    <message>
        <source>On the decode instance no prompt&apos;s prefill shares a step with the decodes, so the ITL spikes that chunked prefill only shortens are gone, and TTFT did not pay for it here: the prefill instance kept up with the arrivals.</source>
        <translation>デコードインスタンスではプロンプトのプリフィルがデコードとステップを共有しないため、チャンク化プリフィルでは短くするだけだった ITL のスパイクがなくなりました。しかもここでは TTFT が犠牲になっていません。プリフィルインスタンスが到着に追いついていました。</translation>
    </message>
    <message>
        <source>P/D did not lower p99 ITL in this run: chunked prefill already kept each prompt&apos;s chunks small next to a decode step, so separating the phases did not pay off on ITL here.</source>
        <translation>この実行では P/D で p99 ITL は下がりませんでした。チャンク化プリフィルがすでに各プロンプトのチャンクをデコードステップに比べて小さく保っていたため、ここではフェーズの分離は ITL の改善につながりませんでした。</translation>
    </message>
    <message>
        <source>See Latency (ITL) and the Runs view, which puts the two runs side by side.</source>
        <translation>レイテンシ（Latency、ITL）と、2 つの実行を並べて比較する実行（Runs）ビューを参照してください。</translation>
    </message>
    <message>
        <source>No SLO was set; goodput needs one.</source>
        <translation>SLO が設定されていません。グッドプットには SLO が必要です。</translation>
    </message>
    <message>
        <source>%1 req/s at %2 (%3 % of requests met it)</source>
        <translation>%2 で %1 req/s（リクエストの %3 % が達成）</translation>
    </message>
    <message>
        <source>Under the SLO %1 (ms), goodput was %2.</source>
        <translation>SLO %1（ms）の下でのグッドプット：%2。</translation>
    </message>
    <message>
        <source>The most requests per second that met it: %1 at %2.</source>
        <translation>SLO を満たした 1 秒あたりリクエスト数の最大は、%2 での %1 でした。</translation>
    </message>
    <message>
        <source>Past that load, throughput keeps rising or stays flat but fewer requests meet the SLO: queueing pushes TTFT over it. Capacity is the load where goodput peaks, not where throughput does. See Latency (TTFT against time).</source>
        <translation>その負荷を超えると、スループットは上がり続けるか横ばいでも、SLO を満たすリクエストは減ります。キューイングで TTFT が SLO を超えるためです。容量とはスループットではなくグッドプットが最大になる負荷です。レイテンシ（Latency、時間に対する TTFT）を参照してください。</translation>
    </message>
    <message>
        <source>Goodput still rose at the highest load tried, so this engine&apos;s capacity under the SLO lies beyond it.</source>
        <translation>試した最大の負荷でもグッドプットはまだ上がっていたため、この SLO でのエンジンの容量はそれより先にあります。</translation>
    </message>
    <message>
        <source>mixed load</source>
        <translation>混合負荷</translation>
    </message>
    <message>
        <source>KV pool as configured</source>
        <translation>設定どおりの KV プール</translation>
    </message>
    <message>
        <source>Why is a decode step as slow as a prefill step of many tokens?</source>
        <translation>なぜデコードステップは、多数のトークンのプリフィルステップと同じくらい遅いのか？</translation>
    </message>
    <message>
        <source>What happens when the KV cache cannot hold the running batch?</source>
        <translation>KV キャッシュが実行中のバッチを保持できないと何が起きるか？</translation>
    </message>
    <message>
        <source>Does a bigger batch make the engine faster, or each request?</source>
        <translation>バッチを大きくすると速くなるのはエンジンか、それとも各リクエストか？</translation>
    </message>
    <message>
        <source>What does %1 trade between TTFT and ITL?</source>
        <translation>%1 は TTFT と ITL の間で何をトレードオフするのか？</translation>
    </message>
    <message>
        <source>How much does a shared system prompt save, and what breaks the reuse?</source>
        <translation>共有システムプロンプトでどれだけ節約でき、何が再利用を壊すのか？</translation>
    </message>
    <message>
        <source>When does speculative decoding pay, and when does it stop paying as load grows?</source>
        <translation>投機的デコードはいつ得をし、負荷が増えるとどこで得をしなくなるのか？</translation>
    </message>
    <message>
        <source>Prefill and decode on separate instances, or chunked prefill on one: what does each do to ITL and TTFT?</source>
        <translation>プリフィルとデコードを別インスタンスに分けるか、1 つでチャンク化プリフィルを使うか：それぞれ ITL と TTFT に何をもたらすか？</translation>
    </message>
    <message>
        <source>How many requests per second can the engine serve within an SLO?</source>
        <translation>エンジンは SLO 内で 1 秒あたり何リクエストを処理できるか？</translation>
    </message>
    <message>
        <source>This lesson needs a real backend: the simulator does not simulate speculative decoding (its tokens are stand-ins, so no draft could be accepted and any speed-up would be made up). Open a model on the CPU and run it again.</source>
        <translation>このレッスンには実際のバックエンドが必要です。シミュレーターは投機的デコードをシミュレートしません（トークンが代用品なのでドラフトは受理されず、高速化の数字は作り話になります）。CPU でモデルを開いてからもう一度実行してください。</translation>
    </message>
    <message>
        <source>%1, speculation off</source>
        <translation>%1、投機的デコードなし</translation>
    </message>
    <message>
        <source>%1, n-gram drafts (k %2)</source>
        <translation>%1、n-gram ドラフト（k %2）</translation>
    </message>
    <message>
        <source>colocated on one GPU, chunked prefill (%1)</source>
        <translation>1 GPU に同居、チャンク化プリフィル（%1）</translation>
    </message>
    <message>
        <source>P/D 1:1, one GPU each</source>
        <translation>P/D 1:1、各 1 GPU</translation>
    </message>
    <message>
        <source>colocated on %1 threads, chunked prefill (%2)</source>
        <translation>%1 スレッドに同居、チャンク化プリフィル（%2）</translation>
    </message>
    <message>
        <source>P/D 1:1 on %1 + %2 threads</source>
        <translation>P/D 1:1、%1 + %2 スレッド</translation>
    </message>
</context>
<context>
    <name>ModelLoad</name>
    <message>
        <source>starting the engine</source>
        <translation>エンジンを起動中</translation>
    </message>
    <message>
        <source>reading config.json</source>
        <translation>config.json を読み込み中</translation>
    </message>
    <message>
        <source>loading the tokenizer</source>
        <translation>トークナイザーを読み込み中</translation>
    </message>
    <message>
        <source>mapping weights</source>
        <translation>重みをマッピング中</translation>
    </message>
    <message>
        <source>checking tensor shapes</source>
        <translation>テンソルの形状を確認中</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>準備完了</translation>
    </message>
    <message>
        <source>reading the GGUF header</source>
        <translation>GGUFヘッダーを読み込み中</translation>
    </message>
</context>
<context>
    <name>PrefixMiss</name>
    <message>
        <source>caching off</source>
        <translation>キャッシュ無効</translation>
    </message>
    <message>
        <source>partial block</source>
        <translation>部分ブロック</translation>
    </message>
    <message>
        <source>last token</source>
        <translation>最後のトークン</translation>
    </message>
    <message>
        <source>evicted</source>
        <translation>追い出し</translation>
    </message>
    <message>
        <source>behind miss</source>
        <translation>ミスの後方</translation>
    </message>
    <message>
        <source>diverged</source>
        <translation>分岐</translation>
    </message>
    <message>
        <source>cold</source>
        <translation>コールド</translation>
    </message>
    <message>
        <source> at token %1</source>
        <translation>（トークン %1 で）</translation>
    </message>
    <message>
        <source> (%1 vs %2)</source>
        <translation>（%1 と %2）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>%1 of %2 prompt tokens from cache</source>
        <translation>プロンプトトークン %2 個中 %1 個がキャッシュから</translation>
    </message>
    <message>
        <source>; %1 computed: %2</source>
        <translation>。%1 個を計算：%2</translation>
    </message>
    <message>
        <source>; %1 recomputed after preemption</source>
        <translation>。プリエンプション後に %1 個を再計算</translation>
    </message>
    <message>
        <source>.
Evicted from t = %1 s, to make room for request %2</source>
        <translation>。
追い出し時刻 t = %1 秒、リクエスト %2 の場所を空けるため</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 に書き込めません：%2</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>%1 を開けません：%2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 (req/s)</source>
        <translation>%1（req/s）</translation>
    </message>
    <message>
        <source> · weights %1 %2 MiB</source>
        <translation> · 重み %1 %2 MiB</translation>
    </message>
    <message>
        <source>SIMULATED · %1 · %2</source>
        <translation>シミュレーション · %1 · %2</translation>
    </message>
    <message>
        <source>
Structural: applies with a rebuild of the KV cache.</source>
        <translation>
構造的：KVキャッシュの再構築とともに適用される。</translation>
    </message>
    <message>
        <source>
Live: applies at the next step; %1 rebuilds the KV cache.</source>
        <translation>
ライブ：次のステップで適用される。%1 はKVキャッシュを再構築する。</translation>
    </message>
    <message>
        <source>
Live: applies at the next step.</source>
        <translation>
ライブ：次のステップで適用される。</translation>
    </message>
    <message>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>on or off</source>
        <translation>オンまたはオフ</translation>
    </message>
    <message>
        <source>a number in (%1, %2]</source>
        <translation>(%1, %2] の範囲の数値</translation>
    </message>
    <message>
        <source>one of %1</source>
        <translation>%1 のいずれか</translation>
    </message>
    <message>
        <source>a JSON object ({} or null = off)</source>
        <translation>JSONオブジェクト（{} または null = オフ）</translation>
    </message>
    <message>
        <source>text</source>
        <translation>テキスト</translation>
    </message>
    <message>
        <source>a power of two in %1..%2</source>
        <translation>%1..%2 の範囲の2のべき乗</translation>
    </message>
    <message>
        <source>an integer in %1..%2</source>
        <translation>%1..%2 の範囲の整数</translation>
    </message>
    <message>
        <source> (0 = %1)</source>
        <translation>（0 = %1）</translation>
    </message>
    <message>
        <source>%1.
Accepts %2.</source>
        <translation>%1。
受け付ける値：%2。</translation>
    </message>
    <message>
        <source>P/D %1:%2 (simulated GPUs)</source>
        <translation>P/D %1:%2（シミュレートされたGPU）</translation>
    </message>
    <message>
        <source>%1 colocated GPUs, chunked prefill</source>
        <translation>同居型GPU %1 台、チャンク化プリフィル</translation>
    </message>
    <message>
        <source>P/D, %1 + %2 threads</source>
        <translation>P/D、%1 + %2 スレッド</translation>
    </message>
    <message>
        <source>colocated, %1 threads, chunked prefill</source>
        <translation>同居型、%1 スレッド、チャンク化プリフィル</translation>
    </message>
</context>
<context>
    <name>RemoteSession</name>
    <message>
        <source>running / waiting requests</source>
        <translation>実行中／待機中のリクエスト</translation>
    </message>
    <message>
        <source>KV cache usage</source>
        <translation>KVキャッシュ使用率</translation>
    </message>
    <message>
        <source>prefix cache hits</source>
        <translation>プレフィックスキャッシュのヒット</translation>
    </message>
    <message>
        <source>preemptions</source>
        <translation>プリエンプション</translation>
    </message>
    <message>
        <source>engine steps</source>
        <translation>エンジンのステップ</translation>
    </message>
</context>
<context>
    <name>lwb::ui::BatchChart</name>
    <message>
        <source>One forward pass per step: decode tokens (one per running request), speculative draft tokens to verify and prefill chunks share the token budget.</source>
        <translation>1ステップにつき1回のフォワードパス：デコードトークン（実行中のリクエストごとに1つ）、検証する投機的ドラフトトークン、プリフィルのチャンクがトークン予算を分け合う。</translation>
    </message>
    <message>
        <source>tokens / step</source>
        <translation>トークン／ステップ</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>デコード</translation>
    </message>
    <message>
        <source>verification (drafts, stacked)</source>
        <translation>検証（ドラフト、積み上げ）</translation>
    </message>
    <message>
        <source>prefill (stacked)</source>
        <translation>プリフィル（積み上げ）</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>リクエスト</translation>
    </message>
    <message>
        <source>step (ms)</source>
        <translation>ステップ（ms）</translation>
    </message>
    <message>
        <source>running</source>
        <translation>実行中</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>step duration (ms, right)</source>
        <translation>ステップ時間（ms、右軸）</translation>
    </message>
</context>
<context>
    <name>lwb::ui::CapacityChart</name>
    <message>
        <source>p99 TTFT (ms)</source>
        <translation>p99 TTFT（ms）</translation>
    </message>
    <message>
        <source>p99 ITL, TPOT (ms)</source>
        <translation>p99 ITL、TPOT（ms）</translation>
    </message>
    <message>
        <source>req/s</source>
        <translation>req/s</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Capacity under SLOs.&lt;/b&gt; Each point is one benchmark run of the same seeded workload at one swept value.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Goodput&lt;/b&gt; (vLLM&apos;s request_goodput): completed requests per second that met every SLO. Below the knee it follows throughput; past it, requests queue, TTFT grows without bound and goodput falls while throughput stays flat.&lt;/p&gt;&lt;p&gt;The dashed vertical line is the &lt;b&gt;saturation point&lt;/b&gt;: the largest swept request rate at which at least 90 % of the completed requests met every SLO (DistServe&apos;s SLO attainment). Horizontal red lines: the SLOs.&lt;/p&gt;&lt;p&gt;Drag to pan, scroll to zoom.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;SLO下のキャパシティ。&lt;/b&gt;各点は、同じシード付きワークロードを1つの掃引値で実行した1回のベンチマークです。&lt;/p&gt;&lt;p&gt;&lt;b&gt;グッドプット&lt;/b&gt;（vLLMの request_goodput）：すべてのSLOを満たした完了リクエスト数／秒。ニーより手前ではスループットに沿って伸びるが、それを超えるとリクエストがキューに溜まり、TTFTが際限なく伸び、スループットが横ばいのままグッドプットは下がる。&lt;/p&gt;&lt;p&gt;縦の破線は&lt;b&gt;飽和点&lt;/b&gt;：完了リクエストの90 %以上がすべてのSLOを満たした、掃引したリクエストレートの最大値（DistServeのSLO達成率）。横の赤線：SLO。&lt;/p&gt;&lt;p&gt;ドラッグでパン、スクロールでズーム。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>B&apos;s </source>
        <translation>Bの</translation>
    </message>
    <message>
        <source>%1TTFT SLO %2 ms</source>
        <translation>%1TTFT SLO %2 ms</translation>
    </message>
    <message>
        <source>%1TPOT SLO %2 ms</source>
        <translation>%1TPOT SLO %2 ms</translation>
    </message>
    <message>
        <source>offered</source>
        <translation>投入負荷</translation>
    </message>
    <message>
        <source>p99 TTFT</source>
        <translation>p99 TTFT</translation>
    </message>
    <message>
        <source>p99 ITL</source>
        <translation>p99 ITL</translation>
    </message>
    <message>
        <source>p99 TPOT</source>
        <translation>p99 TPOT</translation>
    </message>
    <message>
        <source>throughput</source>
        <translation>スループット</translation>
    </message>
    <message>
        <source>goodput</source>
        <translation>グッドプット</translation>
    </message>
    <message>
        <source>%1 saturates at %2 req/s</source>
        <translation>%1 は %2 req/s で飽和</translation>
    </message>
</context>
<context>
    <name>lwb::ui::CapacityPanel</name>
    <message>
        <source>What the sweeps say, from their numbers: where the knee is, which SLO breaks first, and what A&apos;s setting bought against B&apos;s</source>
        <translation>掃引の数値からわかること：ニーの位置、最初に破られるSLO、そしてAの設定がBに対して何をもたらしたか</translation>
    </message>
    <message>
        <source>value %1 of %2 · %3 / %4 requests</source>
        <translation>値 %1 / %2 · %3 / %4 リクエスト</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（なし）</translation>
    </message>
    <message>
        <source>Poisson arrival rate (req/s): the sweep that finds the saturation point</source>
        <translation>ポアソン到着レート（req/s）：飽和点を見つける掃引</translation>
    </message>
    <message>
        <source>vLLM&apos;s max_concurrency: at most this many requests in flight, a client-side cap</source>
        <translation>vLLMの max_concurrency：同時に処理中にできるリクエストの上限（クライアント側の上限）</translation>
    </message>
    <message>
        <source>What the sweep varies: the workload&apos;s request_rate or max_concurrency, or any knob of the table (each value on a fresh engine with the window&apos;s other knobs)</source>
        <translation>掃引で変える項目：ワークロードの request_rate か max_concurrency、または表の任意のノブ（各値はウィンドウの他のノブを使った新しいエンジンで実行）</translation>
    </message>
    <message>
        <source>The swept values, comma-separated; one benchmark run each, with the same seeded workload (request_rate: req/s or inf; a switch: on, off)</source>
        <translation>掃引する値（カンマ区切り）。値ごとに1回、同じシード付きワークロードでベンチマークを実行する（request_rate：req/s または inf、スイッチ：on、off）</translation>
    </message>
    <message>
        <source>&lt;p&gt;The SLOs, in vLLM&apos;s --goodput syntax: ttft, tpot, e2el in milliseconds.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Goodput&lt;/b&gt; is the completed requests per second that met every one; the &lt;b&gt;saturation point&lt;/b&gt; is the largest request rate at which at least 90 % of the completed requests did. Empty: no SLOs, throughput only.&lt;/p&gt;</source>
        <translation>&lt;p&gt;SLO。vLLMの --goodput 構文で、ttft、tpot、e2el をミリ秒で指定。&lt;/p&gt;&lt;p&gt;&lt;b&gt;グッドプット&lt;/b&gt;はそのすべてを満たした完了リクエスト数／秒。&lt;b&gt;飽和点&lt;/b&gt;は完了リクエストの90 %以上が満たした最大のリクエストレート。空欄：SLOなし、スループットのみ。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>制限なし</translation>
    </message>
    <message>
        <source>max_concurrency: at most this many requests in flight, as vllm bench serve&apos;s flag; a request due while the limit is reached waits, timed from when it is sent</source>
        <translation>max_concurrency：同時に処理中にできるリクエストの上限（vllm bench serve のフラグと同じ）。上限に達している間に到着予定のリクエストは待ち、送信した時点から計時する</translation>
    </message>
    <message>
        <source>Stop the sweep; the values finished so far stay</source>
        <translation>掃引を止める。ここまでに終わった値は残る</translation>
    </message>
    <message>
        <source>Run sweep</source>
        <translation>掃引を実行</translation>
    </message>
    <message>
        <source>One benchmark per value on fresh engines with a copy of this window&apos;s knobs and model, off the GUI thread; the engine the window shows keeps serving</source>
        <translation>値ごとに1回のベンチマークを、このウィンドウのノブとモデルをコピーした新しいエンジンでGUIスレッド外で実行する。ウィンドウに表示中のエンジンはそのまま処理を続ける</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>sweep</source>
        <translation>掃引</translation>
    </message>
    <message>
        <source>values</source>
        <translation>値</translation>
    </message>
    <message>
        <source>goodput</source>
        <translation>グッドプット</translation>
    </message>
    <message>
        <source>Open A…</source>
        <translation>Aを開く…</translation>
    </message>
    <message>
        <source>Open B…</source>
        <translation>Bを開く…</translation>
    </message>
    <message>
        <source>Save A…</source>
        <translation>Aを保存…</translation>
    </message>
    <message>
        <source>Show a saved sweep as A (this view&apos;s files, or `llm-workbench bench --sweep --json` output, also from --backend sim or --endpoint)</source>
        <translation>保存した掃引をAとして表示する（このビューのファイル、または `llm-workbench bench --sweep --json` の出力。--backend sim や --endpoint のものも可）</translation>
    </message>
    <message>
        <source>Overlay a saved sweep as B: another knob setting, or local against simulated or remote</source>
        <translation>保存した掃引をBとして重ねる：別のノブ設定や、ローカルとシミュレーション・リモートの比較</translation>
    </message>
    <message>
        <source>Save sweep A as JSON, the format `llm-workbench bench --sweep --json` writes</source>
        <translation>掃引AをJSONとして保存する（`llm-workbench bench --sweep --json` が書く形式）</translation>
    </message>
    <message>
        <source>Open sweep</source>
        <translation>掃引を開く</translation>
    </message>
    <message>
        <source>Sweeps (*.json)</source>
        <translation>掃引（*.json）</translation>
    </message>
    <message>
        <source>No sweep A to save yet.</source>
        <translation>保存する掃引Aがまだありません。</translation>
    </message>
    <message>
        <source>Save sweep</source>
        <translation>掃引を保存</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 を保存しました</translation>
    </message>
    <message>
        <source>this window · %1 · %2</source>
        <translation>このウィンドウ · %1 · %2</translation>
    </message>
    <message>
        <source> (running)</source>
        <translation>（実行中）</translation>
    </message>
    <message>
        <source> (cancelled)</source>
        <translation>（キャンセル）</translation>
    </message>
    <message>
        <source> (failed)</source>
        <translation>（失敗）</translation>
    </message>
    <message>
        <source>No sweep %1 to save</source>
        <translation>保存する掃引 %1 がありません</translation>
    </message>
    <message>
        <source>&lt;b style=&apos;color:%1&apos;&gt;A&lt;/b&gt;: %2 &amp;nbsp; &lt;b style=&apos;color:%3&apos;&gt;B&lt;/b&gt;: %4</source>
        <translation>&lt;b style=&apos;color:%1&apos;&gt;A&lt;/b&gt;：%2 &amp;nbsp; &lt;b style=&apos;color:%3&apos;&gt;B&lt;/b&gt;：%4</translation>
    </message>
    <message>
        <source>&lt;b&gt;A&lt;/b&gt;: %1</source>
        <translation>&lt;b&gt;A&lt;/b&gt;：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;B&lt;/b&gt;: %1</source>
        <translation>&lt;b&gt;B&lt;/b&gt;：%1</translation>
    </message>
    <message>
        <source>Run a sweep, or open one: the knee, the SLO that breaks first and the saturation point appear here.</source>
        <translation>掃引を実行するか開くと、ニー、最初に破られるSLO、飽和点がここに表示されます。</translation>
    </message>
    <message>
        <source>A: %1</source>
        <translation>A：%1</translation>
    </message>
    <message>
        <source>B: %1</source>
        <translation>B：%1</translation>
    </message>
    <message>
        <source>A simulated engine: a sweep of thousands of requests takes seconds.</source>
        <translation>シミュレーションのエンジン：数千リクエストの掃引も数秒で終わります。</translation>
    </message>
    <message>
        <source>A real engine: the sweep shares the cores with the live engine, so keep it small (or pause the engine).</source>
        <translation>実際のエンジン：掃引はライブのエンジンとコアを分け合うので、小さく保ってください（またはエンジンを一時停止）。</translation>
    </message>
    <message>
        <source>No engine yet: open a model, or File ▸ Simulate…</source>
        <translation>エンジンがまだありません：モデルを開くか、ファイル ▸ シミュレーション…</translation>
    </message>
    <message>
        <source>values &apos;%1&apos;: an empty value</source>
        <translation>値 &apos;%1&apos;：空の値があります</translation>
    </message>
    <message>
        <source>values: %1 of them; at most %2</source>
        <translation>値：%1 個。最大 %2 個まで</translation>
    </message>
    <message numerus="yes">
        <source>Sweeping %1 over %n value(s)…</source>
        <translation>
            <numerusform>%1 を %n 個の値で掃引中…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Done: %n value(s).</source>
        <translation>
            <numerusform>完了：%n 個の値。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Cancelled after %1 of %n value(s).</source>
        <translation>
            <numerusform>%n 個中 %1 個の値の後にキャンセルしました。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lwb::ui::ChatConversation</name>
    <message>
        <source>System prompt (sent first: a stable system prompt is what the prefix cache reuses)</source>
        <translation>システムプロンプト（最初に送信される。変わらないシステムプロンプトこそプレフィックスキャッシュが再利用するもの）</translation>
    </message>
    <message>
        <source>Sent at the start of every prompt. Because it never changes, its KV blocks are computed once and then found in the prefix cache (see &apos;cached&apos; below each answer).</source>
        <translation>すべてのプロンプトの先頭に送られる。変わらないため、そのKVブロックは一度だけ計算され、以後はプレフィックスキャッシュで見つかる（各回答の下の「キャッシュ」を参照）。</translation>
    </message>
    <message>
        <source>The first thing a server does: the prompt, rendered with the chat template and split into tokens (piece and id). Special tokens mark the roles.</source>
        <translation>サーバーが最初に行うこと：チャットテンプレートで整形したプロンプトをトークン（ピースとID）に分割する。特殊トークンが役割を示す。</translation>
    </message>
    <message>
        <source>Type a message — Ctrl+Enter to send, Esc to stop</source>
        <translation>メッセージを入力 — Ctrl+Enter で送信、Esc で停止</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>送信</translation>
    </message>
    <message>
        <source>Send (Ctrl+Enter)</source>
        <translation>送信（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Abort the answer (Esc): the engine frees its KV blocks at the next step</source>
        <translation>回答を中断する（Esc）：エンジンは次のステップでそのKVブロックを解放する</translation>
    </message>
    <message>
        <source>Prompt as tokens</source>
        <translation>トークン表示</translation>
    </message>
    <message>
        <source>Show or hide the last prompt as tokens: what the engine actually receives</source>
        <translation>直前のプロンプトをトークンとして表示／非表示：エンジンが実際に受け取るもの</translation>
    </message>
    <message>
        <source>temperature: 0 = greedy (always the most likely token); higher = more varied</source>
        <translation>temperature：0 = 貪欲法（常に最も確率の高いトークン）。高いほど多様になる</translation>
    </message>
    <message>
        <source>top_p: sample only from the smallest set of tokens whose probabilities add up to this</source>
        <translation>top_p：確率の合計がこの値に達する最小のトークン集合からのみサンプリングする</translation>
    </message>
    <message>
        <source>max_tokens: the answer stops after this many tokens (finish reason &apos;length&apos;)</source>
        <translation>max_tokens：回答はこのトークン数で止まる（終了理由 &apos;length&apos;）</translation>
    </message>
    <message>
        <source>random</source>
        <translation>ランダム</translation>
    </message>
    <message>
        <source>seed: the same seed and prompt give the same answer</source>
        <translation>seed：同じシードとプロンプトなら同じ回答になる</translation>
    </message>
    <message>
        <source>enable thinking</source>
        <translation>思考を有効化</translation>
    </message>
    <message>
        <source>enable_thinking, passed to the chat template (vLLM&apos;s chat_template_kwargs): off, the model answers without writing its reasoning first (Qwen 3 style templates)</source>
        <translation>enable_thinking をチャットテンプレートに渡す（vLLMの chat_template_kwargs）。オフ：モデルは推論過程を書かずに回答する（Qwen 3 形式のテンプレート）</translation>
    </message>
    <message>
        <source>No model is loaded yet.</source>
        <translation>モデルがまだ読み込まれていません。</translation>
    </message>
    <message>
        <source>The message alone is longer than max_model_len (%1 tokens).</source>
        <translation>メッセージ単体で max_model_len（%1 トークン）を超えています。</translation>
    </message>
    <message numerus="yes">
        <source>The conversation outgrew max_model_len: dropped the oldest %n turn(s); the system prompt is kept.</source>
        <translation>
            <numerusform>会話が max_model_len を超えたため、古いターンを %n 個削除しました。システムプロンプトは残しています。</numerusform>
        </translation>
    </message>
    <message>
        <source>The engine refused the request: %1</source>
        <translation>エンジンがリクエストを拒否しました：%1</translation>
    </message>
    <message>
        <source>TTFT %1 ms</source>
        <translation>TTFT %1 ms</translation>
    </message>
    <message>
        <source>ITL %1 ms</source>
        <translation>ITL %1 ms</translation>
    </message>
    <message>
        <source>%1 tok/s</source>
        <translation>%1 tok/s</translation>
    </message>
    <message>
        <source>finish: %1</source>
        <translation>終了：%1</translation>
    </message>
    <message>
        <source>(stopped)</source>
        <translation>（停止）</translation>
    </message>
    <message>
        <source>interrupted: the workbench closed before this answer finished</source>
        <translation>中断：この回答が終わる前にワークベンチが閉じられました</translation>
    </message>
    <message>
        <source>Mark tokens from accepted drafts</source>
        <translation>受理されたドラフトのトークンを色付け</translation>
    </message>
    <message>
        <source>Tint answer text that came from speculative drafts the model accepted</source>
        <translation>モデルが受理した投機的ドラフト由来の回答テキストに色を付ける</translation>
    </message>
    <message>
        <source>With speculative decoding on (speculative_config), tinted text came from draft tokens the model accepted. Right-click to turn the marking on or off.</source>
        <translation>投機的デコーディング（speculative_config）が有効なとき、色付きのテキストはモデルが受理したドラフトトークンに由来する。右クリックで色付けのオン／オフを切り替える。</translation>
    </message>
    <message>
        <source>&lt;p style=&apos;color:%1; font-size:9pt&apos;&gt;&lt;span style=&apos;background-color:%2&apos;&gt;&amp;nbsp;tinted&amp;nbsp;&lt;/span&gt; %3 of %4 tokens came from accepted speculative drafts&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:%1; font-size:9pt&apos;&gt;&lt;span style=&apos;background-color:%2&apos;&gt;&amp;nbsp;色付き&amp;nbsp;&lt;/span&gt; %4 トークン中 %3 トークンが受理された投機的ドラフト由来&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p style=&apos;color:%1&apos;&gt;Ask the model something. Each answer shows its TTFT, inter-token latency, speed and how many prompt tokens the prefix cache saved.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:%1&apos;&gt;モデルに何か質問してください。各回答にはTTFT、トークン間レイテンシ、速度、プレフィックスキャッシュで節約したプロンプトトークン数が表示されます。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>You</source>
        <translation>あなた</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>アシスタント</translation>
    </message>
    <message>
        <source>&lt;i&gt;Send a message to see its prompt as tokens.&lt;/i&gt;</source>
        <translation>&lt;i&gt;メッセージを送ると、そのプロンプトがトークンで表示されます。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;p style=&apos;color:%1&apos;&gt;%2 tokens, %3 tokenizer, chat template: %4&lt;/p&gt;&lt;p style=&apos;line-height:160%&apos;&gt;</source>
        <translation>&lt;p style=&apos;color:%1&apos;&gt;%2 トークン、%3 トークナイザー、チャットテンプレート：%4&lt;/p&gt;&lt;p style=&apos;line-height:160%&apos;&gt;</translation>
    </message>
    <message numerus="yes">
        <source>%n output token(s)</source>
        <translation>
            <numerusform>出力 %n トークン</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lwb::ui::ChatPanel</name>
    <message>
        <source>Sampling settings a new chat starts with, and what the chat sends for top_k, min_p and repetition_penalty. As vLLM&apos;s --generation-config auto: the model folder&apos;s generation_config.json where it gives a value, else the built-in one.</source>
        <translation>新しいチャットの開始時のサンプリング設定と、チャットが top_k、min_p、repetition_penalty として送る値。vLLMの --generation-config auto と同様：モデルフォルダの generation_config.json に値があればそれを、なければ組み込みの値を使う。</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>新しい会話</translation>
    </message>
    <message>
        <source>chat %1</source>
        <translation>チャット %1</translation>
    </message>
    <message>
        <source>Sampling defaults: %1</source>
        <translation>サンプリングのデフォルト：%1</translation>
    </message>
    <message>
        <source>%1 (model&apos;s generation_config.json)</source>
        <translation>%1（モデルの generation_config.json）</translation>
    </message>
    <message>
        <source>%1 (built in)</source>
        <translation>%1（組み込み）</translation>
    </message>
</context>
<context>
    <name>lwb::ui::KnobsPanel</name>
    <message>
        <source>— preset —</source>
        <translation>— プリセット —</translation>
    </message>
    <message>
        <source>vLLM defaults</source>
        <translation>vLLMのデフォルト</translation>
    </message>
    <message>
        <source>low latency</source>
        <translation>低レイテンシ</translation>
    </message>
    <message>
        <source>high throughput</source>
        <translation>高スループット</translation>
    </message>
    <message>
        <source>Fill the scheduling knobs from a preset; press Apply to send them</source>
        <translation>プリセットからスケジューリングのノブを埋める。送信するには「適用」を押す</translation>
    </message>
    <message>
        <source>vLLM&apos;s effective defaults depend on the platform: CPU 2048 / 128; GPUs 2048 / 256, and 8192 / 1024 on GPUs with at least 70 GiB (H100 / H200 class, not A100). Set a value to override.</source>
        <translation>vLLMの実効デフォルトはプラットフォームによって異なる：CPUは 2048 / 128、GPUは 2048 / 256、70 GiB以上のGPU（H100 / H200 クラス、A100は除く）では 8192 / 1024。値を設定すると上書きする。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Structural&lt;/b&gt; — these apply with a rebuild of the KV cache</source>
        <translation>&lt;b&gt;構造的&lt;/b&gt; — これらはKVキャッシュの再構築とともに適用される</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>適用</translation>
    </message>
    <message>
        <source>Send the knobs to the engine; the change is marked on every time chart</source>
        <translation>ノブをエンジンに送る。変更はすべての時系列チャートに印が付く</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>元に戻す</translation>
    </message>
    <message>
        <source>Show the knobs the engine is using now</source>
        <translation>エンジンが現在使っているノブを表示する</translation>
    </message>
    <message>
        <source>default (%1)</source>
        <translation>デフォルト（%1）</translation>
    </message>
    <message>
        <source>default = %1: %2 tokens, %3 sequences</source>
        <translation>デフォルト = %1：%2 トークン、%3 シーケンス</translation>
    </message>
    <message>
        <source>Rebuild the KV cache?</source>
        <translation>KVキャッシュを再構築しますか？</translation>
    </message>
    <message>
        <source>Changing %1 rebuilds the engine&apos;s KV cache. Let running requests finish first, or abort them?</source>
        <translation>%1 を変更するとエンジンのKVキャッシュが再構築されます。実行中のリクエストの完了を待ちますか、それとも中断しますか？</translation>
    </message>
    <message>
        <source>Drain, then rebuild</source>
        <translation>完了を待ってから再構築</translation>
    </message>
    <message>
        <source>Abort in-flight</source>
        <translation>処理中のものを中断</translation>
    </message>
    <message>
        <source>Not applied: %1</source>
        <translation>適用されませんでした：%1</translation>
    </message>
    <message>
        <source>Engine error: %1</source>
        <translation>エンジンエラー：%1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::KvBlockMap</name>
    <message>
        <source>showing %1 of %2 blocks (widen the dock, or set %3)</source>
        <translation>%2 ブロック中 %1 ブロックを表示（ドックを広げるか、%3 を設定）</translation>
    </message>
    <message>
        <source>blocks %1–%2 not shown: never used yet (free)</source>
        <translation>ブロック %1–%2 は非表示：まだ一度も使われていない（空き）</translation>
    </message>
    <message>
        <source>No KV cache yet: load a model.</source>
        <translation>KVキャッシュはまだありません：モデルを読み込んでください。</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空き</translation>
    </message>
    <message>
        <source>cached, free (evictable; reused on a prefix hit)</source>
        <translation>キャッシュ済み・空き（追い出し可能。プレフィックスヒットで再利用）</translation>
    </message>
    <message>
        <source>in use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>shared by %1 requests (prefix cache)</source>
        <translation>%1 リクエストで共有（プレフィックスキャッシュ）</translation>
    </message>
    <message>
        <source>&lt;b&gt;block %1&lt;/b&gt; — %2&lt;br&gt;ref count: %3</source>
        <translation>&lt;b&gt;ブロック %1&lt;/b&gt; — %2&lt;br&gt;参照カウント：%3</translation>
    </message>
    <message>
        <source>&lt;br&gt;owners: %1</source>
        <translation>&lt;br&gt;所有者：%1</translation>
    </message>
    <message>
        <source>&lt;br&gt;tokens: positions %1–%2 (%3 filled)</source>
        <translation>&lt;br&gt;トークン：位置 %1–%2（%3 個埋まっている）</translation>
    </message>
    <message>
        <source>&lt;br&gt;hash: %1</source>
        <translation>&lt;br&gt;ハッシュ：%1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::KvPanel</name>
    <message>
        <source>KV cache: no engine</source>
        <translation>KVキャッシュ：エンジンなし</translation>
    </message>
    <message>
        <source>KV blocks in use (blue), cached but free — evictable, kept for prefix hits (grey hatched) — and free (dark). vllm:kv_cache_usage_perc counts the blocks in use.</source>
        <translation>使用中のKVブロック（青）、キャッシュ済みだが空き — 追い出し可能で、プレフィックスヒットのために保持（灰色の斜線） — と空き（暗色）。vllm:kv_cache_usage_perc は使用中のブロックを数える。</translation>
    </message>
    <message>
        <source>owned (colour = request)</source>
        <translation>所有（色 = リクエスト）</translation>
    </message>
    <message>
        <source>cached, free (evictable)</source>
        <translation>キャッシュ済み・空き（追い出し可能）</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空き</translation>
    </message>
    <message>
        <source>shared (ref&gt;1)</source>
        <translation>共有（ref&gt;1）</translation>
    </message>
    <message>
        <source>preempted</source>
        <translation>プリエンプト済み</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1%&lt;/b&gt; in use — %2 of %3 blocks × %4 tokens · %5 shared · %6 cached-free · preemptions: %7</source>
        <translation>&lt;b&gt;%1%&lt;/b&gt; 使用中 — %3 ブロック中 %2 ブロック × %4 トークン · 共有 %5 · キャッシュ済み空き %6 · プリエンプション：%7</translation>
    </message>
</context>
<context>
    <name>lwb::ui::LatencyChart</name>
    <message>
        <source>TTFT = queueing + prefill (a point per request); ITL = gap between decoded tokens (a point per token).</source>
        <translation>TTFT = キュー待ち + プリフィル（リクエストごとに1点）。ITL = デコードされたトークン間の間隔（トークンごとに1点）。</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT (ms)</translation>
    </message>
    <message>
        <source>TTFT per request</source>
        <translation>リクエストごとのTTFT</translation>
    </message>
    <message>
        <source>ITL (ms)</source>
        <translation>ITL (ms)</translation>
    </message>
    <message>
        <source>inter-token latency</source>
        <translation>トークン間レイテンシ</translation>
    </message>
</context>
<context>
    <name>lwb::ui::LatencyPanel</name>
    <message>
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>p50</source>
        <translation>p50</translation>
    </message>
    <message>
        <source>p90</source>
        <translation>p90</translation>
    </message>
    <message>
        <source>p99</source>
        <translation>p99</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>n</source>
        <translation>件数</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT (ms)</translation>
    </message>
    <message>
        <source>ITL (ms)</source>
        <translation>ITL (ms)</translation>
    </message>
    <message>
        <source>TPOT (ms)</source>
        <translation>TPOT (ms)</translation>
    </message>
    <message>
        <source>e2e (ms)</source>
        <translation>e2e (ms)</translation>
    </message>
    <message>
        <source>Time to first token = queueing + prefill</source>
        <translation>最初のトークンまでの時間 = キュー待ち + プリフィル</translation>
    </message>
    <message>
        <source>Inter-token latency: every gap between successive tokens</source>
        <translation>トークン間レイテンシ：連続するトークン間のすべての間隔</translation>
    </message>
    <message>
        <source>Time per output token = (e2e − TTFT) / (output tokens − 1), per request</source>
        <translation>出力トークンあたりの時間 = (e2e − TTFT) / (出力トークン数 − 1)、リクエストごと</translation>
    </message>
    <message>
        <source>End-to-end latency = arrival → last token</source>
        <translation>エンドツーエンドのレイテンシ = 到着 → 最後のトークン</translation>
    </message>
    <message>
        <source>Over completed requests (finish reason stop or length) kept in this session</source>
        <translation>このセッションで保持している完了リクエスト（終了理由 stop または length）が対象</translation>
    </message>
</context>
<context>
    <name>lwb::ui::LessonsPanel</name>
    <message>
        <source>Each lesson runs a prepared workload under a few settings of this engine and writes what changed, from the numbers measured</source>
        <translation>各レッスンは、用意したワークロードをこのエンジンのいくつかの設定で実行し、測定した数値から何が変わったかを書く</translation>
    </message>
    <message>
        <source>size ×</source>
        <translation>サイズ ×</translation>
    </message>
    <message>
        <source>The workloads&apos; size: 1 takes about a minute per lesson on a 2-core CPU</source>
        <translation>ワークロードのサイズ：1 は2コアCPUでレッスンあたり約1分</translation>
    </message>
    <message>
        <source>Run lesson</source>
        <translation>レッスンを実行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>The finding appears here, written from this run&apos;s numbers.</source>
        <translation>この実行の数値から書かれた結果がここに表示されます。</translation>
    </message>
    <message>
        <source>No engine is running yet.</source>
        <translation>実行中のエンジンがまだありません。</translation>
    </message>
    <message>
        <source>Run %1 of %2: %3</source>
        <translation>実行 %1 / %2：%3</translation>
    </message>
    <message>
        <source>The lesson&apos;s workload was refused; see the load generator.</source>
        <translation>レッスンのワークロードが拒否されました。負荷生成を確認してください。</translation>
    </message>
    <message numerus="yes">
        <source>Done: %n run(s). The Runs view compares the last two.</source>
        <translation>
            <numerusform>完了：%n 回実行。「実行の比較」ビューで最後の2回を比較できます。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stopped after %1 of %n run(s).</source>
        <translation>
            <numerusform>%n 回中 %1 回の実行後に停止しました。</numerusform>
        </translation>
    </message>
    <message>
        <source>This lesson cannot run on this engine.</source>
        <translation>このレッスンはこのエンジンでは実行できません。</translation>
    </message>
    <message>
        <source>Run %1 of %2: %3, on a prefill and a decode instance of their own; the run appears in the Runs view when it ends.</source>
        <translation>実行 %1 / %2：%3。専用のプリフィルインスタンスとデコードインスタンスで実行します。終了すると実行（Runs）ビューに表示されます。</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>キャンセルされました</translation>
    </message>
    <message>
        <source>The P/D run failed: %1</source>
        <translation>P/D の実行に失敗しました：%1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::LoadPanel</name>
    <message>
        <source>Stop submitting and abort the load&apos;s requests still in flight</source>
        <translation>投入を止め、処理中の負荷リクエストを中断する</translation>
    </message>
    <message>
        <source>%v / %m finished</source>
        <translation>%v / %m 完了</translation>
    </message>
    <message>
        <source>Synthetic requests, as `llm-workbench bench` sends them, alongside your chats.</source>
        <translation>`llm-workbench bench` と同じ合成リクエストを、チャットと並行して送る。</translation>
    </message>
    <message>
        <source>No model is loaded yet.</source>
        <translation>モデルがまだ読み込まれていません。</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>実行中…</translation>
    </message>
    <message>
        <source>Request %1 refused: %2</source>
        <translation>リクエスト %1 が拒否されました：%2</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>停止しました。</translation>
    </message>
    <message>
        <source>%1 submitted · %v / %m finished</source>
        <translation>%1 件投入 · %v / %m 完了</translation>
    </message>
    <message numerus="yes">
        <source>Done: %n request(s).</source>
        <translation>
            <numerusform>完了：%n リクエスト。</numerusform>
        </translation>
    </message>
    <message>
        <source>Not started: %1</source>
        <translation>開始できませんでした：%1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::MainWindow</name>
    <message>
        <source>LLM Workbench</source>
        <translation>LLM Workbench</translation>
    </message>
    <message>
        <source>Could not load the model</source>
        <translation>モデルを読み込めませんでした</translation>
    </message>
    <message>
        <source>%1

%2</source>
        <translation>%1

%2</translation>
    </message>
    <message>
        <source>No default model</source>
        <translation>デフォルトのモデルがありません</translation>
    </message>
    <message>
        <source>

Use File ▸ Open model folder…</source>
        <translation>

ファイル ▸ モデルフォルダを開く… を使ってください</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>チャット</translation>
    </message>
    <message>
        <source>Scheduler knobs</source>
        <translation>スケジューラのノブ</translation>
    </message>
    <message>
        <source>Load generator</source>
        <translation>負荷生成</translation>
    </message>
    <message>
        <source>Batch composition per step</source>
        <translation>ステップごとのバッチ構成</translation>
    </message>
    <message>
        <source>KV block map</source>
        <translation>KVブロックマップ</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>レイテンシ</translation>
    </message>
    <message>
        <source>Prefix cache</source>
        <translation>プレフィックスキャッシュ</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <translation>投機的デコーディング</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>リクエスト</translation>
    </message>
    <message>
        <source>Runs: compare</source>
        <translation>実行の比較</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>レッスン</translation>
    </message>
    <message>
        <source>Request timeline</source>
        <translation>リクエストのタイムライン</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>キャパシティ</translation>
    </message>
    <message>
        <source>no model</source>
        <translation>モデルなし</translation>
    </message>
    <message>
        <source>Output tokens per second, all requests, over the last second</source>
        <translation>全リクエストの出力トークン数／秒（直近1秒間）</translation>
    </message>
    <message>
        <source>vllm:kv_cache_usage_perc: KV blocks in use</source>
        <translation>vllm:kv_cache_usage_perc：使用中のKVブロック</translation>
    </message>
    <message>
        <source>Requests running (in the batch) and waiting (queued or preempted)</source>
        <translation>実行中（バッチ内）と待機中（キュー内またはプリエンプト済み）のリクエスト</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>処理中</translation>
    </message>
    <message>
        <source>A model is already loading.</source>
        <translation>すでにモデルを読み込み中です。</translation>
    </message>
    <message>
        <source>loading %1…</source>
        <translation>%1 を読み込み中…</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; · %2 · %3 M params · %4 layers · %5</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; · %2 · %3 M パラメータ · %4 層 · %5</translation>
    </message>
    <message>
        <source>%1 tokenizer</source>
        <translation>%1 トークナイザー</translation>
    </message>
    <message>
        <source>no tokenizer (token ids)</source>
        <translation>トークナイザーなし（トークンID）</translation>
    </message>
    <message>
        <source>Engine error: %1</source>
        <translation>エンジンエラー：%1</translation>
    </message>
    <message>
        <source>Knobs: %1</source>
        <translation>ノブ：%1</translation>
    </message>
    <message>
        <source>SIMULATED · %1 · %2</source>
        <translation>シミュレーション · %1 · %2</translation>
    </message>
    <message>
        <source>Chat is off in a simulated engine: it runs no weights, so its tokens are stand-ins. The load generator and every view work.</source>
        <translation>シミュレーションのエンジンではチャットは無効です：重みを実行しないため、トークンは代用品です。負荷生成とすべてのビューは動作します。</translation>
    </message>
    <message>
        <source>LLM Workbench — SIMULATED</source>
        <translation>LLM Workbench — シミュレーション</translation>
    </message>
    <message>
        <source>&lt;b style=&quot;color:%1&quot;&gt;SIMULATED&lt;/b&gt; · %2 (%3 GiB per device) · predicted times</source>
        <translation>&lt;b style=&quot;color:%1&quot;&gt;シミュレーション&lt;/b&gt; · %2（デバイスあたり %3 GiB）· 予測時間</translation>
    </message>
    <message>
        <source>%1 · %2 (%3 GiB)</source>
        <translation>%1 · %2（%3 GiB）</translation>
    </message>
    <message>
        <source>%1 tok/s</source>
        <translation>%1 tok/s</translation>
    </message>
    <message>
        <source>KV %1%</source>
        <translation>KV %1%</translation>
    </message>
    <message>
        <source>running %1 · waiting %2%3</source>
        <translation>実行中 %1 · 待機中 %2%3</translation>
    </message>
    <message>
        <source> · PAUSED</source>
        <translation> · 一時停止中</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open model folder…</source>
        <translation>モデルフォルダを開く(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>Hugging Face のモデルフォルダを開く</translation>
    </message>
    <message>
        <source>Open &amp;GGUF file…</source>
        <translation>GGUFファイルを開く(&amp;G)…</translation>
    </message>
    <message>
        <source>Open a GGUF model file</source>
        <translation>GGUFモデルファイルを開く</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUFモデル（*.gguf）</translation>
    </message>
    <message>
        <source>&amp;Simulate…</source>
        <translation>シミュレーション(&amp;S)…</translation>
    </message>
    <message>
        <source>Run the real scheduler and KV cache on a virtual clock for simulated hardware (H100, A100, …) and a model&apos;s config.json: GPU-scale serving, every figure predicted</source>
        <translation>シミュレートしたハードウェア（H100、A100 など）とモデルの config.json で、実際のスケジューラとKVキャッシュを仮想時計上で動かす：GPU規模のサービング、すべての数値は予測値</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近使ったモデル(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Export metrics…</source>
        <translation>メトリクスをエクスポート(&amp;E)…</translation>
    </message>
    <message>
        <source>Export chart as &amp;PNG</source>
        <translation>チャートをPNGでエクスポート(&amp;P)</translation>
    </message>
    <message>
        <source>Batch composition</source>
        <translation>バッチ構成</translation>
    </message>
    <message>
        <source>Latency over time</source>
        <translation>レイテンシの推移</translation>
    </message>
    <message>
        <source>Run comparison</source>
        <translation>実行の比較</translation>
    </message>
    <message>
        <source>Whole window</source>
        <translation>ウィンドウ全体</translation>
    </message>
    <message>
        <source>&amp;Save run…</source>
        <translation>実行を保存(&amp;S)…</translation>
    </message>
    <message>
        <source>Open &amp;run…</source>
        <translation>実行を開く(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <source>Show &amp;speculative decoding</source>
        <translation>投機的デコーディングを表示(&amp;S)</translation>
    </message>
    <message>
        <source>Acceptance rate over time and per draft position (speculative_config)</source>
        <translation>受理率の推移とドラフト位置ごとの受理率（speculative_config）</translation>
    </message>
    <message>
        <source>Show &amp;capacity</source>
        <translation>キャパシティを表示(&amp;C)</translation>
    </message>
    <message>
        <source>How many requests per second this engine serves within SLOs: sweep the request rate (or a knob) for p99 TTFT and ITL, goodput and the saturation point</source>
        <translation>このエンジンがSLO内で1秒あたり何リクエストを処理できるか：リクエストレート（またはノブ）を掃引して、p99 TTFTとITL、グッドプット、飽和点を求める</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>レイアウトをリセット(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Engine</source>
        <translation>エンジン(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Backend</source>
        <translation>バックエンド(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>一時停止(&amp;P)</translation>
    </message>
    <message>
        <source>Stop stepping the engine to inspect the charts; requests keep their state</source>
        <translation>エンジンのステップを止めてチャートを調べる。リクエストは状態を保つ</translation>
    </message>
    <message>
        <source>Simulation &amp;speed</source>
        <translation>シミュレーション速度(&amp;S)</translation>
    </message>
    <message>
        <source>How fast a simulated engine&apos;s virtual clock runs against the wall clock</source>
        <translation>シミュレーションのエンジンの仮想時計が実時間に対してどれだけ速く進むか</translation>
    </message>
    <message>
        <source>&amp;1× (real time)</source>
        <translation>&amp;1×（実時間）</translation>
    </message>
    <message>
        <source>1&amp;0×</source>
        <translation>1&amp;0×</translation>
    </message>
    <message>
        <source>&amp;As fast as possible</source>
        <translation>可能な限り速く(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Reset</source>
        <translation>リセット(&amp;R)</translation>
    </message>
    <message>
        <source>Aborted all requests and cleared the history</source>
        <translation>すべてのリクエストを中断し、履歴を消去しました</translation>
    </message>
    <message>
        <source>Serve &amp;API…</source>
        <translation>APIを提供(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Lessons</source>
        <translation>レッスン(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>キーボードショートカット(&amp;K)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>キーボードショートカット</translation>
    </message>
    <message>
        <source>&lt;table&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Enter&lt;/b&gt;&lt;/td&gt;&lt;td&gt;send the chat message&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Esc&lt;/b&gt;&lt;/td&gt;&lt;td&gt;stop the answer (abort)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Space&lt;/b&gt; / Pause&lt;/td&gt;&lt;td&gt;pause / resume the engine&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+O&lt;/b&gt;&lt;/td&gt;&lt;td&gt;open a model folder&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Shift+M&lt;/b&gt;&lt;/td&gt;&lt;td&gt;simulate GPU-scale serving&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+L&lt;/b&gt;&lt;/td&gt;&lt;td&gt;the lessons (guided experiments)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+S&lt;/b&gt;&lt;/td&gt;&lt;td&gt;save the run&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Shift+D&lt;/b&gt;&lt;/td&gt;&lt;td&gt;show the speculative-decoding view&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Shift+C&lt;/b&gt;&lt;/td&gt;&lt;td&gt;show the capacity view (goodput sweeps)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Q&lt;/b&gt;&lt;/td&gt;&lt;td&gt;quit&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;drag / wheel&lt;/td&gt;&lt;td&gt;pan / zoom a chart&apos;s time axis&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;double-click&lt;/td&gt;&lt;td&gt;follow live data again&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;table&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Enter&lt;/b&gt;&lt;/td&gt;&lt;td&gt;チャットのメッセージを送信&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Esc&lt;/b&gt;&lt;/td&gt;&lt;td&gt;回答を停止（中断）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Space&lt;/b&gt; / Pause&lt;/td&gt;&lt;td&gt;エンジンを一時停止／再開&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+O&lt;/b&gt;&lt;/td&gt;&lt;td&gt;モデルフォルダを開く&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Shift+M&lt;/b&gt;&lt;/td&gt;&lt;td&gt;GPU規模のサービングをシミュレート&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+L&lt;/b&gt;&lt;/td&gt;&lt;td&gt;レッスン（ガイド付き実験）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+S&lt;/b&gt;&lt;/td&gt;&lt;td&gt;実行を保存&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Shift+D&lt;/b&gt;&lt;/td&gt;&lt;td&gt;投機的デコーディングのビューを表示&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Shift+C&lt;/b&gt;&lt;/td&gt;&lt;td&gt;キャパシティのビューを表示（グッドプットの掃引）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Q&lt;/b&gt;&lt;/td&gt;&lt;td&gt;終了&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;ドラッグ / ホイール&lt;/td&gt;&lt;td&gt;チャートの時間軸をパン / ズーム&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;ダブルクリック&lt;/td&gt;&lt;td&gt;ライブデータの追従に戻る&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <source>&amp;About</source>
        <translation>LLM Workbench について(&amp;A)</translation>
    </message>
    <message>
        <source>About LLM Workbench</source>
        <translation>LLM Workbench について</translation>
    </message>
    <message>
        <source>&lt;b&gt;LLM Workbench %1&lt;/b&gt;&lt;p&gt;Runs a real LLM engine and shows what a serving engine does inside: continuous batching, chunked prefill, the paged KV cache, prefix caching, preemption, and their effect on TTFT and inter-token latency. Knob and metric names follow vLLM.&lt;/p&gt;&lt;p&gt;GPL-3.0-or-later. Charts by QCustomPlot.&lt;/p&gt;</source>
        <translation>&lt;b&gt;LLM Workbench %1&lt;/b&gt;&lt;p&gt;実際のLLMエンジンを動かし、サービングエンジンの内部で何が起きているかを見せる：連続バッチング、チャンク化プリフィル、ページングされたKVキャッシュ、プレフィックスキャッシュ、プリエンプション、そしてそれらがTTFTとトークン間レイテンシに与える影響。ノブとメトリクスの名前はvLLMに従う。&lt;/p&gt;&lt;p&gt;GPL-3.0-or-later。チャートは QCustomPlot による。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Export metrics</source>
        <translation>メトリクスをエクスポート</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>エクスポートに失敗しました</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>%1 をエクスポートしました</translation>
    </message>
    <message>
        <source>Export %1 as PNG</source>
        <translation>%1 をPNGでエクスポート</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG画像（*.png）</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>%1 に書き込めません</translation>
    </message>
    <message>
        <source>Save run</source>
        <translation>実行を保存</translation>
    </message>
    <message>
        <source>Workbench runs (*.json)</source>
        <translation>ワークベンチの実行（*.json）</translation>
    </message>
    <message>
        <source>Save failed</source>
        <translation>保存に失敗しました</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 を保存しました</translation>
    </message>
    <message>
        <source>Open run</source>
        <translation>実行を開く</translation>
    </message>
    <message>
        <source>Workbench runs and sweeps (*.json)</source>
        <translation>ワークベンチの実行と掃引（*.json）</translation>
    </message>
    <message>
        <source>Open failed</source>
        <translation>開けませんでした</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>No recent models</source>
        <translation>最近使ったモデルはありません</translation>
    </message>
    <message>
        <source>&amp;Clear list</source>
        <translation>一覧を消去(&amp;C)</translation>
    </message>
    <message>
        <source>Model not found</source>
        <translation>モデルが見つかりません</translation>
    </message>
    <message>
        <source>%1

no longer exists; it was removed from the recent models.</source>
        <translation>%1

はもう存在しません。最近使ったモデルから削除しました。</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>言語(&amp;L)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>システム</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>言語</translation>
    </message>
    <message>
        <source>The language changes when LLM Workbench starts again.</source>
        <translation>言語は LLM Workbench を次に起動したときに切り替わります。</translation>
    </message>
    <message>
        <source>Requests CSV (*.csv)</source>
        <translation>リクエストCSV（*.csv）</translation>
    </message>
    <message>
        <source>Steps CSV (*.csv)</source>
        <translation>ステップCSV（*.csv）</translation>
    </message>
    <message>
        <source>Chrome trace (*.trace.json)</source>
        <translation>Chromeトレース（*.trace.json）</translation>
    </message>
    <message>
        <source>Metrics JSON (*.json)</source>
        <translation>メトリクスJSON（*.json）</translation>
    </message>
    <message>
        <source>Prefill / decode</source>
        <translation>プリフィル／デコード</translation>
    </message>
    <message>
        <source>Prefill/&amp;decode disaggregation…</source>
        <translation>プリフィル／デコード分離(&amp;D)…</translation>
    </message>
    <message>
        <source>Run the model as a prefill instance and a decode instance, the KV cache copied between them; Prefill / decode shows both</source>
        <translation>モデルをプリフィルインスタンスとデコードインスタンスとして実行し、KVキャッシュをその間でコピーする。「プリフィル／デコード」ビューに両方が表示される</translation>
    </message>
    <message>
        <source>No model is loaded yet.</source>
        <translation>まだモデルが読み込まれていません。</translation>
    </message>
    <message>
        <source>P:D %1:%2: expected two positive thread counts, e.g. 1:1</source>
        <translation>P:D %1:%2：正のスレッド数を2つ指定してください（例：1:1）</translation>
    </message>
    <message>
        <source>Prefill/decode disaggregation</source>
        <translation>プリフィル／デコード分離</translation>
    </message>
    <message>
        <source>P:D — threads of the prefill and the decode instance, or 0:0 for one colocated engine:</source>
        <translation>P:D — プリフィルインスタンスとデコードインスタンスのスレッド数。同居型エンジン1つに戻すには 0:0：</translation>
    </message>
    <message>
        <source>&quot;%1&quot;: expected P:D, e.g. 1:1</source>
        <translation>「%1」：P:D の形式で指定してください（例：1:1）</translation>
    </message>
    <message>
        <source>Done: A = %1, B = %2 in Runs: compare.</source>
        <translation>完了：A = %1、B = %2 を「実行の比較」に追加しました。</translation>
    </message>
    <message>
        <source>The comparison failed: %1</source>
        <translation>比較に失敗しました：%1</translation>
    </message>
    <message>
        <source>Running the load generator&apos;s workload (at most %1 requests) on the pair, then on the colocated design…</source>
        <translation>負荷生成器のワークロード（最大 %1 リクエスト）をペアで、続いて同居型構成で実行中…</translation>
    </message>
    <message>
        <source>P:D %1:%2: expected two positive counts of simulated GPUs, e.g. 2:2</source>
        <translation>P:D %1:%2：シミュレートするGPUの正の台数を2つ指定してください（例：2:2）</translation>
    </message>
    <message>
        <source>P:D %1:%2: the window shows at most %3 simulated prefill and %3 decode instances; bench --pd N:M runs more</source>
        <translation>P:D %1:%2：ウィンドウで扱えるのは、シミュレートされたプリフィルインスタンスとデコードインスタンスそれぞれ最大%3個までです。それ以上は bench --pd N:M で実行できます</translation>
    </message>
    <message>
        <source>P:D — prefill and decode instances of the simulated GPU (each 1 to %1), or 0:0 for one colocated engine:</source>
        <translation>P:D — シミュレートされたGPUのプリフィルインスタンス数とデコードインスタンス数（それぞれ1〜%1）。同居型エンジン1つに戻すには 0:0：</translation>
    </message>
</context>
<context>
    <name>lwb::ui::PdPanel</name>
    <message>
        <source>Prefill instance (P)</source>
        <translation>プリフィルインスタンス（P）</translation>
    </message>
    <message>
        <source>Decode instance (D)</source>
        <translation>デコードインスタンス（D）</translation>
    </message>
    <message>
        <source>Runs each prompt with max_tokens 1, as vLLM&apos;s disaggregation proxy sends it; its KV blocks are then copied to the decode instance.</source>
        <translation>vLLMの分離プロキシが送るのと同じく、各プロンプトを max_tokens 1 で実行する。そのKVブロックはその後デコードインスタンスへコピーされる。</translation>
    </message>
    <message>
        <source>Receives each prompt&apos;s KV blocks (a prefix-cache hit), computes only the last partial block and decodes.</source>
        <translation>各プロンプトのKVブロックを受け取り（プレフィックスキャッシュのヒット）、最後の部分ブロックだけを計算してデコードする。</translation>
    </message>
    <message>
        <source>A colocated engine is running. Engine ▸ Prefill/decode disaggregation… starts a prefill/decode pair; its two instances show here.</source>
        <translation>同居型エンジンが実行中です。エンジン ▸ プリフィル／デコード分離… でプリフィル／デコードのペアを開始すると、2つのインスタンスがここに表示されます。</translation>
    </message>
    <message>
        <source>Compare with colocated chunked prefill</source>
        <translation>同居型チャンク化プリフィルと比較</translation>
    </message>
    <message>
        <source>Runs the load generator&apos;s workload twice off the window&apos;s engine: on this P/D pair and on the colocated design on the same hardware (one instance on the same threads with chunked prefill; on the simulator, as many colocated instances as the pair has GPUs). Both runs land in Runs: compare.</source>
        <translation>負荷生成器のワークロードをウィンドウのエンジンとは別に2回実行する：このP/Dペアと、同じハードウェア上の同居型構成（同じスレッド数でチャンク化プリフィルを使う1インスタンス。シミュレータではペアと同じGPU数の同居型インスタンス）。両方の実行結果が「実行の比較」に入る。</translation>
    </message>
    <message>
        <source>Which prefill instance this side shows: a new request goes to the one with the fewest prompt tokens still to compute.</source>
        <translation>この側に表示するプリフィルインスタンス。新しいリクエストは、計算の残っているプロンプトトークンが最も少ないインスタンスに送られる。</translation>
    </message>
    <message>
        <source>Which decode instance this side shows: a prefilled request goes to the one with the most free KV blocks. The window&apos;s Batch composition per step and KV block map docks show decode instance 1.</source>
        <translation>この側に表示するデコードインスタンス。プリフィル済みのリクエストは、空きKVブロックが最も多いインスタンスに送られる。ウィンドウの「ステップごとのバッチ構成」と「KVブロックマップ」のドックはデコードインスタンス1を表示する。</translation>
    </message>
    <message>
        <source>Prefill instance %1 of %2</source>
        <translation>プリフィルインスタンス %1 / %2</translation>
    </message>
    <message>
        <source>Decode instance %1 of %2</source>
        <translation>デコードインスタンス %1 / %2</translation>
    </message>
</context>
<context>
    <name>lwb::ui::PrefixCacheChart</name>
    <message>
        <source>Prompt tokens found in the prefix cache (computed once, reused): put static text such as a system prompt first.</source>
        <translation>プレフィックスキャッシュで見つかったプロンプトトークン（一度計算して再利用）。システムプロンプトのような静的なテキストを先頭に置くこと。</translation>
    </message>
    <message>
        <source>hit rate (%)</source>
        <translation>ヒット率（%）</translation>
    </message>
    <message>
        <source>hit rate, last %1 requests</source>
        <translation>ヒット率、直近 %1 リクエスト</translation>
    </message>
    <message>
        <source>hit rate, cumulative</source>
        <translation>ヒット率、累積</translation>
    </message>
    <message>
        <source>prompt tokens</source>
        <translation>プロンプトトークン</translation>
    </message>
    <message>
        <source>queried (cumulative)</source>
        <translation>問い合わせ（累積）</translation>
    </message>
    <message>
        <source>hit (cumulative)</source>
        <translation>ヒット（累積）</translation>
    </message>
    <message>
        <source>missed tokens</source>
        <translation>ミスしたトークン</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteCountersChart</name>
    <message>
        <source>The server&apos;s batches and prefix cache, from the growth of its /metrics counters between two scrapes (x: seconds since connecting).</source>
        <translation>サーバーのバッチとプレフィックスキャッシュ。2回のスクレイプ間の /metrics カウンタの増分から算出（x：接続からの秒数）。</translation>
    </message>
    <message>
        <source>tokens / step</source>
        <translation>トークン／ステップ</translation>
    </message>
    <message>
        <source>tokens per engine step (mean of the interval)</source>
        <translation>エンジンステップあたりのトークン数（区間の平均）</translation>
    </message>
    <message>
        <source>prefix hit rate (%)</source>
        <translation>プレフィックスヒット率（%）</translation>
    </message>
    <message>
        <source>hit rate of the interval&apos;s prompts</source>
        <translation>区間内のプロンプトのヒット率</translation>
    </message>
    <message>
        <source>since the server started</source>
        <translation>サーバー起動以降</translation>
    </message>
    <message>
        <source>preemptions</source>
        <translation>プリエンプション</translation>
    </message>
    <message>
        <source>preemptions in the interval</source>
        <translation>区間内のプリエンプション</translation>
    </message>
    <message>
        <source>%1 does not export %2</source>
        <translation>%1 は %2 をエクスポートしていません</translation>
    </message>
    <message>
        <source>tokens per engine step</source>
        <translation>エンジンステップあたりのトークン数</translation>
    </message>
    <message>
        <source>the prefix-cache hit rate</source>
        <translation>プレフィックスキャッシュのヒット率</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteKnobsPanel</name>
    <message>
        <source>&lt;b&gt;The server&apos;s start-up flags, read-only.&lt;/b&gt; The server was started with these; change them where it is started. Only what the server reports is filled in (vLLM: vllm:cache_config_info on /metrics; llama.cpp: /props); the rest is unknown.</source>
        <translation>&lt;b&gt;サーバーの起動時フラグ（読み取り専用）。&lt;/b&gt;サーバーはこれらで起動されています。変更は起動する側で行ってください。サーバーが報告するものだけが埋まります（vLLM：/metrics の vllm:cache_config_info、llama.cpp：/props）。それ以外は不明です。</translation>
    </message>
    <message>
        <source>
Here: the remote server&apos;s start-up flag (read-only).</source>
        <translation>
ここでは：リモートサーバーの起動時フラグ（読み取り専用）。</translation>
    </message>
    <message>
        <source>unknown: the server does not report it</source>
        <translation>不明：サーバーが報告していない</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteKvBlockMap</name>
    <message>
        <source>No stored blocks reported yet (the map fills from the server&apos;s KV events).</source>
        <translation>格納済みブロックの報告はまだありません（マップはサーバーのKVイベントから埋まります）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;not reported as stored&lt;/b&gt;&lt;br&gt;free, or in use by a request whose block is not full yet (the server&apos;s events name full blocks only)</source>
        <translation>&lt;b&gt;格納済みとして報告されていない&lt;/b&gt;&lt;br&gt;空き、またはブロックがまだ満杯でないリクエストが使用中（サーバーのイベントは満杯のブロックだけを通知する）</translation>
    </message>
    <message>
        <source>&lt;b&gt;stored block&lt;/b&gt; — prefix tree %1, depth %2&lt;br&gt;hash: %3</source>
        <translation>&lt;b&gt;格納済みブロック&lt;/b&gt; — プレフィックスツリー %1、深さ %2&lt;br&gt;ハッシュ：%3</translation>
    </message>
    <message>
        <source>&lt;br&gt;parent: %1</source>
        <translation>&lt;br&gt;親：%1</translation>
    </message>
    <message>
        <source>&lt;br&gt;head block (no parent)</source>
        <translation>&lt;br&gt;先頭ブロック（親なし）</translation>
    </message>
    <message>
        <source>&lt;br&gt;copy %1 of %2 (the server holds this hash more than once)</source>
        <translation>&lt;br&gt;%2 個中 %1 個目のコピー（サーバーはこのハッシュを複数保持している）</translation>
    </message>
    <message>
        <source>&lt;br&gt;tokens at positions %1–%2: %3</source>
        <translation>&lt;br&gt;位置 %1–%2 のトークン：%3</translation>
    </message>
    <message>
        <source>&lt;br&gt;medium: %1</source>
        <translation>&lt;br&gt;媒体：%1</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;which request holds it is not in the events&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;どのリクエストが保持しているかはイベントに含まれない&lt;/i&gt;</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteKvPanel</name>
    <message>
        <source>Coloured: blocks the server reports stored, one colour per prefix tree (blocks that continue one head block), laid out tree by tree. Dark: the rest of the pool. Not in vLLM&apos;s KV events, so not shown: which request owns a block (no ownership colours), the block ids, and whether a block not reported as stored is free or holds a partial block.</source>
        <translation>色付き：サーバーが格納済みと報告したブロック。プレフィックスツリー（1つの先頭ブロックに続くブロック群）ごとに1色で、ツリーごとに並べる。暗色：プールの残り。vLLMのKVイベントに含まれないため表示しないもの：どのリクエストがブロックを所有しているか（所有者の色なし）、ブロックID、格納済みと報告されていないブロックが空きか部分ブロックを保持しているか。</translation>
    </message>
    <message>
        <source>No KV-event address given: start the window with --kv-events ADDR (the address of the server&apos;s --kv-events-config publisher) to draw its blocks.</source>
        <translation>KVイベントのアドレスが指定されていません：ブロックを描くには --kv-events ADDR（サーバーの --kv-events-config パブリッシャーのアドレス）を付けてウィンドウを起動してください。</translation>
    </message>
    <message>
        <source>%1 blocks stored by the server (from %2 event batches)</source>
        <translation>サーバーが格納したブロック %1 個（イベントバッチ %2 個から）</translation>
    </message>
    <message>
        <source> of %1 in its pool (num_gpu_blocks)</source>
        <translation>（プール内 %1 個中、num_gpu_blocks）</translation>
    </message>
    <message>
        <source>; the pool size is not reported</source>
        <translation>。プールのサイズは報告されていない</translation>
    </message>
    <message>
        <source> (drawn up to a margin past the stored blocks)</source>
        <translation>（格納済みブロックより少し先まで描画）</translation>
    </message>
    <message>
        <source>; KV cache usage %1% (/metrics)</source>
        <translation>。KVキャッシュ使用率 %1%（/metrics）</translation>
    </message>
    <message>
        <source>; %1 batches missed, %2 malformed</source>
        <translation>。バッチ %1 個を取りこぼし、%2 個が不正</translation>
    </message>
    <message>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteLoad</name>
    <message>
        <source>A load run is going on.</source>
        <translation>負荷の実行中です。</translation>
    </message>
    <message>
        <source>Not connected to a server.</source>
        <translation>サーバーに接続していません。</translation>
    </message>
    <message>
        <source>The server&apos;s model is not known yet (not connected).</source>
        <translation>サーバーのモデルがまだわかりません（未接続）。</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteLoadPanel</name>
    <message>
        <source>Send nothing more and cancel the streams in flight</source>
        <translation>これ以上送信せず、処理中のストリームをキャンセルする</translation>
    </message>
    <message>
        <source>default (min(num_prompts, %1))</source>
        <translation>デフォルト（min(num_prompts, %1)）</translation>
    </message>
    <message>
        <source>max_concurrency: streams open at once; a request waits for a free one</source>
        <translation>max_concurrency：同時に開くストリーム数。リクエストは空きを待つ</translation>
    </message>
    <message>
        <source>bundled model&apos;s</source>
        <translation>同梱モデルのもの</translation>
    </message>
    <message>
        <source>tokenizer: a folder with the served model&apos;s tokenizer.json or tokenizer.model. Prompts are sent as token ids, so lengths are exact in the server&apos;s tokens.</source>
        <translation>tokenizer：提供中のモデルの tokenizer.json または tokenizer.model があるフォルダ。プロンプトはトークンIDとして送られるため、長さはサーバーのトークンで正確になる。</translation>
    </message>
    <message>
        <source>%v / %m finished</source>
        <translation>%v / %m 完了</translation>
    </message>
    <message>
        <source>Synthetic requests, as `llm-workbench bench --endpoint` sends them, timed by this client.</source>
        <translation>`llm-workbench bench --endpoint` と同じ合成リクエストを送り、このクライアントで計時する。</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>停止中…</translation>
    </message>
    <message>
        <source>Running against %1…</source>
        <translation>%1 に対して実行中…</translation>
    </message>
    <message>
        <source>%1 sent · %v / %m finished</source>
        <translation>%1 件送信 · %v / %m 完了</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失敗：%1</translation>
    </message>
    <message>
        <source> Why prompt tokens missed the prefix cache: not known (no KV-event address given).</source>
        <translation> プロンプトトークンがプレフィックスキャッシュをミスした理由：不明（KVイベントのアドレスが指定されていない）。</translation>
    </message>
    <message>
        <source> Why prompt tokens missed: reconstructed from the server&apos;s KV events and its cached_tokens; caching_off and who evicted a block cannot be known from outside.</source>
        <translation> プロンプトトークンがミスした理由：サーバーのKVイベントと cached_tokens から再構成。caching_off と、誰がブロックを追い出したかは外部からはわからない。</translation>
    </message>
    <message>
        <source> %1 missed tokens were in blocks the events showed cached when sent (removed before the server&apos;s lookup, or hashed differently: cache_salt, LoRA).</source>
        <translation> ミスしたトークンのうち %1 個は、送信時にイベント上でキャッシュ済みだったブロックにあった（サーバーの検索前に削除されたか、ハッシュが異なる：cache_salt、LoRA）。</translation>
    </message>
    <message numerus="yes">
        <source>Done: %1 of %n request(s) completed.</source>
        <translation>
            <numerusform>完了：%n リクエスト中 %1 件が完了しました。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> %n request(s) not explained (no usage cached_tokens, or no block stored yet when sent).</source>
        <translation>
            <numerusform> %n リクエストは説明できない（usage に cached_tokens がない、または送信時にまだブロックが格納されていない）。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteMetricsChart</name>
    <message>
        <source>The server&apos;s own gauges from its /metrics, scraped about once a second (x: seconds since connecting).</source>
        <translation>サーバー自身の /metrics のゲージ。約1秒ごとにスクレイプ（x：接続からの秒数）。</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>リクエスト</translation>
    </message>
    <message>
        <source>running</source>
        <translation>実行中</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>KV cache usage (%)</source>
        <translation>KVキャッシュ使用率（%）</translation>
    </message>
    <message>
        <source>KV cache usage</source>
        <translation>KVキャッシュ使用率</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemotePairWindow</name>
    <message>
        <source>LLM Workbench — remote prefill/decode pair</source>
        <translation>LLM Workbench — リモートのプリフィル／デコードペア</translation>
    </message>
    <message>
        <source>Prefill instance (kv_producer): %1</source>
        <translation>プリフィルインスタンス（kv_producer）：%1</translation>
    </message>
    <message>
        <source>Decode instance (kv_consumer): %1</source>
        <translation>デコードインスタンス（kv_consumer）：%1</translation>
    </message>
    <message>
        <source>Each side is a remote window of its own: its own connection, status, knobs and gauges. Requests go through the deployment&apos;s proxy; each side shows its server&apos;s share of the work.</source>
        <translation>それぞれが独立したリモートウィンドウで、接続・状態・ノブ・ゲージを個別に持つ。リクエストはデプロイメントのプロキシを経由し、各側はそのサーバーが担った分の処理を表示する。</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteRunViews</name>
    <message>
        <source>Load generator</source>
        <translation>負荷生成</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>リクエスト</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>レイテンシ</translation>
    </message>
    <message>
        <source>Request timeline</source>
        <translation>リクエストのタイムライン</translation>
    </message>
    <message>
        <source>Runs: compare</source>
        <translation>実行の比較</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>実行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save load run…</source>
        <translation>負荷の実行を保存(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Open run to compare…</source>
        <translation>比較する実行を開く(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Export requests…</source>
        <translation>リクエストをエクスポート(&amp;E)…</translation>
    </message>
    <message>
        <source>No load run has ended yet: nothing to save.</source>
        <translation>終了した負荷の実行がまだありません：保存するものがありません。</translation>
    </message>
    <message>
        <source>Save load run</source>
        <translation>負荷の実行を保存</translation>
    </message>
    <message>
        <source>Bench JSON (*.json)</source>
        <translation>bench JSON（*.json）</translation>
    </message>
    <message>
        <source>Save failed</source>
        <translation>保存に失敗しました</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 を保存しました</translation>
    </message>
    <message>
        <source>Open run</source>
        <translation>実行を開く</translation>
    </message>
    <message>
        <source>Runs and bench JSON (*.json)</source>
        <translation>実行と bench JSON（*.json）</translation>
    </message>
    <message>
        <source>Open failed</source>
        <translation>開けませんでした</translation>
    </message>
    <message>
        <source>Export requests</source>
        <translation>リクエストをエクスポート</translation>
    </message>
    <message>
        <source>Metrics JSON (*.json);;Requests CSV (*.csv);;Chrome trace (*.trace.json)</source>
        <translation>メトリクスJSON（*.json）;;リクエストCSV（*.csv）;;Chromeトレース（*.trace.json）</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>エクスポートに失敗しました</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>%1 をエクスポートしました</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteServerViews</name>
    <message>
        <source>Server batches and prefix cache</source>
        <translation>サーバーのバッチとプレフィックスキャッシュ</translation>
    </message>
    <message>
        <source>Server KV blocks</source>
        <translation>サーバーのKVブロック</translation>
    </message>
    <message>
        <source>Server knobs (read-only)</source>
        <translation>サーバーのノブ（読み取り専用）</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RemoteWindow</name>
    <message>
        <source>LLM Workbench — remote</source>
        <translation>LLM Workbench — リモート</translation>
    </message>
    <message>
        <source>Message the server&apos;s model (its own chat template applies)</source>
        <translation>サーバーのモデルにメッセージを送る（サーバー自身のチャットテンプレートが適用される）</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>送信</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Server configuration, read-only: these are the server&apos;s start-up flags (change them where the server is started).</source>
        <translation>サーバーの設定（読み取り専用）：サーバーの起動時フラグです（変更はサーバーを起動する側で行ってください）。</translation>
    </message>
    <message>
        <source>setting</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>value</source>
        <translation>値</translation>
    </message>
    <message>
        <source>reported by</source>
        <translation>報告元</translation>
    </message>
    <message>
        <source>KV events: %1</source>
        <translation>KVイベント：%1</translation>
    </message>
    <message>
        <source>KV cache from the server&apos;s KV events: %1 cached blocks; %2 batches (last seq %3)</source>
        <translation>サーバーのKVイベントによるKVキャッシュ：キャッシュ済みブロック %1 個、バッチ %2 個（最後のシーケンス番号 %3）</translation>
    </message>
    <message>
        <source>; %1 malformed, %2 missed</source>
        <translation>。不正 %1 個、取りこぼし %2 個</translation>
    </message>
    <message>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
    <message>
        <source>The events also explain, for the load runs&apos; prompts, why their tokens missed the prefix cache (the Requests table): blocks stored then removed are evicted, blocks never stored are cold, matched by the token ids BlockStored carries. Not known from outside: whether caching is off, which request&apos;s allocation evicted a block, and anything before the subscription or in a missed batch (counted as cold).</source>
        <translation>イベントは負荷実行のプロンプトについて、トークンがプレフィックスキャッシュをミスした理由も説明する（リクエスト表）：格納後に削除されたブロックは追い出し、一度も格納されていないブロックはコールドで、BlockStored が運ぶトークンIDで照合する。外部からわからないもの：キャッシュが無効かどうか、どのリクエストの割り当てがブロックを追い出したか、購読前や取りこぼしたバッチ内のすべて（コールドとして数える）。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Connect…</source>
        <translation>接続(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>Connect to a server</source>
        <translation>サーバーに接続</translation>
    </message>
    <message>
        <source>OpenAI-compatible server (vLLM, SGLang, llama.cpp, llm-workbench serve):</source>
        <translation>OpenAI互換サーバー（vLLM、SGLang、llama.cpp、llm-workbench serve）：</translation>
    </message>
    <message>
        <source>not connected: %1</source>
        <translation>未接続：%1</translation>
    </message>
    <message>
        <source>connecting to %1 …</source>
        <translation>%1 に接続中…</translation>
    </message>
    <message>
        <source>%1 · model %2 · %3</source>
        <translation>%1 · モデル %2 · %3</translation>
    </message>
    <message>
        <source>server</source>
        <translation>サーバー</translation>
    </message>
    <message>
        <source>(unknown)</source>
        <translation>（不明）</translation>
    </message>
    <message>
        <source>disconnected: %1 — retrying</source>
        <translation>切断：%1 — 再試行中</translation>
    </message>
    <message>
        <source>connected; /metrics: %1</source>
        <translation>接続済み。/metrics：%1</translation>
    </message>
    <message>
        <source>connected (reconnected)</source>
        <translation>接続済み（再接続）</translation>
    </message>
    <message>
        <source>connected</source>
        <translation>接続済み</translation>
    </message>
    <message>
        <source>The server exports every gauge these views use.</source>
        <translation>サーバーは、これらのビューが使うすべてのゲージをエクスポートしています。</translation>
    </message>
    <message>
        <source>This server does not export: %1.</source>
        <translation>このサーバーがエクスポートしていないもの：%1。</translation>
    </message>
    <message>
        <source>The server reports no configuration (%1).</source>
        <translation>サーバーは設定を報告していません（%1）。</translation>
    </message>
    <message>
        <source>You: %1</source>
        <translation>あなた：%1</translation>
    </message>
    <message>
        <source>Assistant: </source>
        <translation>アシスタント：</translation>
    </message>
    <message>
        <source>[TTFT %1, ITL %2, %3 tokens, finish %4]</source>
        <translation>[TTFT %1、ITL %2、%3 トークン、終了 %4]</translation>
    </message>
    <message>
        <source>[error: %1]</source>
        <translation>[エラー：%1]</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RequestsTableModel</name>
    <message>
        <source>id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>state</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>prio</source>
        <translation>優先</translation>
    </message>
    <message>
        <source>prompt</source>
        <translation>入力</translation>
    </message>
    <message>
        <source>cached</source>
        <translation>再利用</translation>
    </message>
    <message>
        <source>output</source>
        <translation>出力</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT (ms)</translation>
    </message>
    <message>
        <source>ITL (ms)</source>
        <translation>ITL (ms)</translation>
    </message>
    <message>
        <source>e2e (ms)</source>
        <translation>e2e (ms)</translation>
    </message>
    <message>
        <source>finish</source>
        <translation>終了</translation>
    </message>
    <message>
        <source>tag</source>
        <translation>タグ</translation>
    </message>
    <message>
        <source>drafts</source>
        <translation>ドラフト</translation>
    </message>
    <message>
        <source>missed (why)</source>
        <translation>ミス（理由）</translation>
    </message>
    <message>
        <source>Request id, in arrival order</source>
        <translation>リクエストID（到着順）</translation>
    </message>
    <message>
        <source>waiting (queued), running (holds KV blocks), preempted (blocks taken back; recomputed later), finished; in flight: sent to a remote server, not answered in full yet</source>
        <translation>待機中（キュー内）、実行中（KVブロックを保持）、プリエンプト済み（ブロックを回収され、後で再計算）、完了。送信中：リモートサーバーに送ったが、まだ回答が揃っていない</translation>
    </message>
    <message>
        <source>Priority (with the priority scheduling policy: lower value runs first)</source>
        <translation>優先度（priority スケジューリングポリシーのとき：値が小さいほど先に実行）</translation>
    </message>
    <message>
        <source>Prompt tokens</source>
        <translation>プロンプトトークン数</translation>
    </message>
    <message>
        <source>Prompt tokens found in the prefix cache on admission (not recomputed)</source>
        <translation>受け入れ時にプレフィックスキャッシュで見つかったプロンプトトークン（再計算しない）</translation>
    </message>
    <message>
        <source>Tokens generated so far</source>
        <translation>これまでに生成したトークン数</translation>
    </message>
    <message>
        <source>Time to first token: queueing + prefill</source>
        <translation>最初のトークンまでの時間：キュー待ち + プリフィル</translation>
    </message>
    <message>
        <source>Mean inter-token latency while decoding</source>
        <translation>デコード中のトークン間レイテンシの平均</translation>
    </message>
    <message>
        <source>End to end: arrival to last token</source>
        <translation>エンドツーエンド：到着から最後のトークンまで</translation>
    </message>
    <message>
        <source>Why it ended: stop (EOS / stop string), length (max_tokens), abort, error, rejected</source>
        <translation>終了理由：stop（EOS / 停止文字列）、length（max_tokens）、abort、error、rejected</translation>
    </message>
    <message>
        <source>Origin: a chat tab or the load generator</source>
        <translation>発生元：チャットのタブまたは負荷生成</translation>
    </message>
    <message>
        <source>Speculative decoding: draft tokens accepted / proposed for this request, and the mean acceptance length (1 + accepted / verifications: tokens gained per target step; near 1 speculation is pure cost). Empty when no draft was verified</source>
        <translation>投機的デコーディング：このリクエストで受理されたドラフトトークン数 / 提案されたドラフトトークン数と、平均受理長（1 + 受理数 / 検証回数：ターゲットの1ステップで得られるトークン数。1に近ければ投機は純粋なコスト）。検証されたドラフトがなければ空欄</translation>
    </message>
    <message>
        <source>Prompt tokens computed rather than found in the prefix cache, and why: caching off, partial block (the trailing incomplete block is never cached), last token (a cached last block dropped because the last prompt token must be computed), evicted, behind miss (cached, but after a missed block), diverged (at the first token that differs from an earlier prompt), cold (never seen). Hover a row for details</source>
        <translation>プレフィックスキャッシュで見つからず計算したプロンプトトークンとその理由：キャッシュ無効、部分ブロック（末尾の不完全なブロックはキャッシュされない）、最後のトークン（最後のプロンプトトークンは計算が必要なため、キャッシュ済みの最後のブロックを使わない）、追い出し、ミスの後方（キャッシュ済みだがミスしたブロックより後ろ）、分岐（以前のプロンプトと最初に異なるトークンから）、コールド（一度も見ていない）。行にカーソルを合わせると詳細を表示</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>実行中</translation>
    </message>
    <message>
        <source>preempted</source>
        <translation>プリエンプト済み</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>完了</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>拒否</translation>
    </message>
    <message>
        <source>in flight</source>
        <translation>送信中</translation>
    </message>
</context>
<context>
    <name>lwb::ui::RunsPanel</name>
    <message>
        <source>Open A…</source>
        <translation>Aを開く…</translation>
    </message>
    <message>
        <source>Open B…</source>
        <translation>Bを開く…</translation>
    </message>
    <message>
        <source>A = this session</source>
        <translation>A = このセッション</translation>
    </message>
    <message>
        <source>Compare a saved run (File ▸ Save run…) as A</source>
        <translation>保存した実行（ファイル ▸ 実行を保存…）をAとして比較する</translation>
    </message>
    <message>
        <source>Compare a saved run as B: change one knob, run the same workload, save, compare</source>
        <translation>保存した実行をBとして比較する：ノブを1つ変え、同じワークロードを実行して保存し、比較する</translation>
    </message>
    <message>
        <source>Run A follows what the engine is doing now</source>
        <translation>実行Aはエンジンの現在の動作に追従する</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT (ms)</translation>
    </message>
    <message>
        <source>ITL (ms)</source>
        <translation>ITL (ms)</translation>
    </message>
    <message>
        <source>requests / tokens at or below (%)</source>
        <translation>この値以下のリクエスト／トークンの割合（%）</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>B vs A</source>
        <translation>B 対 A</translation>
    </message>
    <message>
        <source>Open run</source>
        <translation>実行を開く</translation>
    </message>
    <message>
        <source>Workbench runs (*.json)</source>
        <translation>ワークベンチの実行（*.json）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（なし）</translation>
    </message>
    <message>
        <source>this session</source>
        <translation>このセッション</translation>
    </message>
    <message>
        <source>&lt;b style=&apos;color:%1&apos;&gt;A&lt;/b&gt;: %2 &amp;nbsp; &lt;b style=&apos;color:%3&apos;&gt;B&lt;/b&gt;: %4</source>
        <translation>&lt;b style=&apos;color:%1&apos;&gt;A&lt;/b&gt;：%2 &amp;nbsp; &lt;b style=&apos;color:%3&apos;&gt;B&lt;/b&gt;：%4</translation>
    </message>
</context>
<context>
    <name>lwb::ui::ServeDialog</name>
    <message>
        <source>Serve API</source>
        <translation>APIを提供</translation>
    </message>
    <message>
        <source>Serve the OpenAI-compatible API and /metrics</source>
        <translation>OpenAI互換APIと /metrics を提供する</translation>
    </message>
    <message>
        <source>127.0.0.1 accepts connections from this machine only</source>
        <translation>127.0.0.1 はこのマシンからの接続のみ受け付ける</translation>
    </message>
    <message>
        <source>0 picks a free port</source>
        <translation>0 で空きポートを選ぶ</translation>
    </message>
    <message>
        <source>none: no authentication</source>
        <translation>なし：認証なし</translation>
    </message>
    <message>
        <source>When set, /v1 routes require &apos;Authorization: Bearer &lt;key&gt;&apos;</source>
        <translation>設定すると、/v1 のルートに &apos;Authorization: Bearer &lt;key&gt;&apos; が必要になる</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>ホスト</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>ポート</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>APIキー</translation>
    </message>
</context>
<context>
    <name>lwb::ui::ServeSwitch</name>
    <message>
        <source>OpenAI-compatible API served by this window (Engine ▸ Serve API…)</source>
        <translation>このウィンドウが提供するOpenAI互換API（エンジン ▸ APIを提供…）</translation>
    </message>
    <message>
        <source>Serve API</source>
        <translation>APIを提供</translation>
    </message>
    <message>
        <source>API: %1/v1</source>
        <translation>API：%1/v1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::SimulateDialog</name>
    <message>
        <source>Simulate</source>
        <translation>シミュレーション</translation>
    </message>
    <message>
        <source>Profile file…</source>
        <translation>プロファイルファイル…</translation>
    </message>
    <message>
        <source>Model folder or config.json…</source>
        <translation>モデルフォルダまたは config.json…</translation>
    </message>
    <message>
        <source>Only config.json is read: no weights are needed. Prompts are seeded random token ids when the folder has no tokenizer.</source>
        <translation>読むのは config.json だけ：重みは不要。フォルダにトークナイザーがなければ、プロンプトはシード付きのランダムなトークンIDになる。</translation>
    </message>
    <message>
        <source>1× (real time)</source>
        <translation>1×（実時間）</translation>
    </message>
    <message>
        <source>10×</source>
        <translation>10×</translation>
    </message>
    <message>
        <source>As fast as possible</source>
        <translation>可能な限り速く</translation>
    </message>
    <message>
        <source>How fast the virtual clock runs; Engine ▸ Simulation speed changes it later, Engine ▸ Pause stops it</source>
        <translation>仮想時計の進む速さ。後から エンジン ▸ シミュレーション速度 で変更でき、エンジン ▸ 一時停止 で止まる</translation>
    </message>
    <message>
        <source>&amp;Hardware:</source>
        <translation>ハードウェア(&amp;H)：</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>モデル(&amp;M)：</translation>
    </message>
    <message>
        <source>&amp;Tensor parallel:</source>
        <translation>テンソル並列(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Speed:</source>
        <translation>速度(&amp;S)：</translation>
    </message>
    <message>
        <source>A hardware profile (llm-workbench calibrate --out)</source>
        <translation>ハードウェアプロファイル（llm-workbench calibrate --out）</translation>
    </message>
    <message>
        <source>Profiles (*.json)</source>
        <translation>プロファイル（*.json）</translation>
    </message>
    <message>
        <source>A model folder holding config.json</source>
        <translation>config.json があるモデルフォルダ</translation>
    </message>
    <message>
        <source>%1 · %2 layers · KV pool sized as the CPU backend sizes it</source>
        <translation>%1 · %2 層 · KVプールはCPUバックエンドと同じ方法でサイズを決める</translation>
    </message>
    <message>
        <source>%1 GiB of weights per GPU · %2 KV blocks (%3 tokens) · %4× concurrency at %5 tokens per request</source>
        <translation>GPUあたり重み %1 GiB · KVブロック %2 個（%3 トークン）· リクエストあたり %5 トークンで同時実行 %4×</translation>
    </message>
    <message>
        <source>Cannot simulate: %1</source>
        <translation>シミュレーションできません：%1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::SpecDecodeChart</name>
    <message>
        <source>Speculative decoding: how many draft tokens the target model accepts. Each verification yields the accepted drafts plus one token of its own.</source>
        <translation>投機的デコーディング：ターゲットモデルが受理するドラフトトークンの数。各検証で、受理されたドラフトに加えて自身のトークンを1つ得る。</translation>
    </message>
    <message>
        <source>acceptance rate (%)</source>
        <translation>受理率（%）</translation>
    </message>
    <message>
        <source>last %1 verifications</source>
        <translation>直近 %1 回の検証</translation>
    </message>
    <message>
        <source>cumulative</source>
        <translation>累積</translation>
    </message>
    <message>
        <source>mean acceptance length</source>
        <translation>平均受理長</translation>
    </message>
</context>
<context>
    <name>lwb::ui::SpecDecodePanel</name>
    <message>
        <source>&lt;b&gt;Speculative decoding is off.&lt;/b&gt; Turn it on with the &lt;code&gt;%1&lt;/code&gt; knob (Scheduler knobs), e.g. &lt;code&gt;{&quot;method&quot;: &quot;ngram&quot;, &quot;num_speculative_tokens&quot;: 4, &quot;prompt_lookup_max&quot;: 4}&lt;/code&gt; (prompt lookup) or &lt;code&gt;{&quot;model&quot;: &quot;…/austen-chat-draft&quot;, &quot;num_speculative_tokens&quot;: 3}&lt;/code&gt; (a draft model); on the command line &lt;code&gt;--speculative-config &apos;{…}&apos;&lt;/code&gt;.</source>
        <translation>&lt;b&gt;投機的デコーディングはオフです。&lt;/b&gt;&lt;code&gt;%1&lt;/code&gt; ノブ（スケジューラのノブ）で有効にします。例：&lt;code&gt;{&quot;method&quot;: &quot;ngram&quot;, &quot;num_speculative_tokens&quot;: 4, &quot;prompt_lookup_max&quot;: 4}&lt;/code&gt;（プロンプトルックアップ）または &lt;code&gt;{&quot;model&quot;: &quot;…/austen-chat-draft&quot;, &quot;num_speculative_tokens&quot;: 3}&lt;/code&gt;（ドラフトモデル）。コマンドラインでは &lt;code&gt;--speculative-config &apos;{…}&apos;&lt;/code&gt;。</translation>
    </message>
    <message>
        <source>Acceptance rate = accepted / draft tokens; mean acceptance length = 1 + accepted / verifications (tokens a request gains per target step), as vLLM reports them</source>
        <translation>受理率 = 受理数 / ドラフトトークン数。平均受理長 = 1 + 受理数 / 検証回数（ターゲットの1ステップでリクエストが得るトークン数）。いずれもvLLMの報告と同じ</translation>
    </message>
    <message>
        <source>%1, k = %2</source>
        <translation>%1、k = %2</translation>
    </message>
    <message>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <source> · last %1 verifications: acceptance %2%, mean length %3</source>
        <translation> · 直近 %1 回の検証：受理率 %2%、平均長 %3</translation>
    </message>
    <message>
        <source> · since the engine started: %1 verifications, acceptance %2%, mean length %3</source>
        <translation> · エンジン起動以降：検証 %1 回、受理率 %2%、平均長 %3</translation>
    </message>
    <message>
        <source>Speculation costs more than it gains: the mean acceptance length is %1 over the last %2 verifications (warning below %3). Each verification spends the drafts&apos; positions of the token budget (and, with a draft model, its passes) to gain %4 tokens beyond the one a plain step makes. Try a smaller num_speculative_tokens, another method, or turn %5 off.</source>
        <translation>投機が得るものよりコストのほうが大きい：直近 %2 回の検証で平均受理長は %1（%3 未満で警告）。各検証はトークン予算のうちドラフトの位置分を（ドラフトモデルならそのパスも）使い、通常のステップが作る1トークンに加えて %4 トークンを得る。num_speculative_tokens を小さくするか、別の方式を試すか、%5 をオフにすること。</translation>
    </message>
    <message>
        <source>⚠ speculation: mean acceptance length %1</source>
        <translation>⚠ 投機：平均受理長 %1</translation>
    </message>
</context>
<context>
    <name>lwb::ui::SpecPositionChart</name>
    <message>
        <source>draft position</source>
        <translation>ドラフト位置</translation>
    </message>
    <message>
        <source>accepted (%)</source>
        <translation>受理（%）</translation>
    </message>
    <message>
        <source>&lt;p&gt;vllm:spec_decode_num_accepted_tokens_per_pos / vllm:spec_decode_num_drafts, since the engine started: the share of verifications that accepted the draft up to this position. A draft is accepted as a prefix, so the bars fall from left to right; a steep drop says fewer speculative tokens (num_speculative_tokens) would waste less.&lt;/p&gt;</source>
        <translation>&lt;p&gt;vllm:spec_decode_num_accepted_tokens_per_pos / vllm:spec_decode_num_drafts（エンジン起動以降）：この位置までドラフトを受理した検証の割合。ドラフトは接頭辞として受理されるため、棒は左から右へ下がる。急に下がるなら、投機トークン数（num_speculative_tokens）を減らすと無駄が減る。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>lwb::ui::TimeChart</name>
    <message>
        <source>● Live</source>
        <translation>● ライブ</translation>
    </message>
    <message>
        <source>Follow the newest data. Drag to pan and scroll to zoom (that stops following); double-click the chart or press this to follow again.</source>
        <translation>最新のデータに追従する。ドラッグでパン、スクロールでズーム（追従は止まる）。チャートをダブルクリックするか、これを押すと再び追従する。</translation>
    </message>
    <message>
        <source>engine time (s)</source>
        <translation>エンジン時間（s）</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1&lt;/p&gt;&lt;p&gt;Drag to pan, scroll to zoom the time axis; double-click to follow live data.&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1&lt;/p&gt;&lt;p&gt;ドラッグでパン、スクロールで時間軸をズーム。ダブルクリックでライブデータに追従。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>lwb::ui::TimelineChart</name>
    <message>
        <source>Newest %1 requests, one row each: queued → prefill → decode.</source>
        <translation>最新の %1 リクエスト、1行に1つ：キュー待ち → プリフィル → デコード。</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>キュー待ち</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>プリフィル</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>デコード</translation>
    </message>
    <message>
        <source>request id</source>
        <translation>リクエストID</translation>
    </message>
    <message>
        <source>request %1</source>
        <translation>リクエスト %1</translation>
    </message>
    <message>
        <source>until first token (queue + prefill)</source>
        <translation>最初のトークンまで（キュー待ち + プリフィル）</translation>
    </message>
    <message>
        <source>streaming</source>
        <translation>ストリーミング</translation>
    </message>
    <message>
        <source>request</source>
        <translation>リクエスト</translation>
    </message>
    <message>
        <source>KV transfer (P/D)</source>
        <translation>KV転送（P/D）</translation>
    </message>
    <message>
        <source>
KV transfer, prefill → decode instance: %1 ms, %2 KiB (the wait on the link included)</source>
        <translation>
KV転送、プリフィル → デコードインスタンス：%1 ms、%2 KiB（リンクでの待ち時間を含む）</translation>
    </message>
</context>
<context>
    <name>lwb::ui::WorkloadForm</name>
    <message>
        <source> req/s</source>
        <translation> req/s</translation>
    </message>
    <message>
        <source>inf (all at once)</source>
        <translation>inf（一斉に）</translation>
    </message>
    <message>
        <source>request_rate: Poisson arrivals at this mean rate. inf: every request arrives at t = 0 (a burst: measures peak throughput; TTFT then mostly measures queueing).</source>
        <translation>request_rate：この平均レートのポアソン到着。inf：すべてのリクエストが t = 0 に到着する（バースト：ピークスループットを測る。このときTTFTはほぼキュー待ちを測ることになる）。</translation>
    </message>
    <message>
        <source>num_prompts: how many requests to send</source>
        <translation>num_prompts：送信するリクエスト数</translation>
    </message>
    <message>
        <source>input_len: each prompt&apos;s own part (after the shared prefix), in tokens</source>
        <translation>input_len：各プロンプト固有の部分（共有プレフィックスの後ろ）のトークン数</translation>
    </message>
    <message>
        <source>range_ratio r: lengths uniform in [L(1−r), L(1+r)]</source>
        <translation>range_ratio r：長さは [L(1−r), L(1+r)] の一様分布</translation>
    </message>
    <message>
        <source>output_len: max_tokens of every request</source>
        <translation>output_len：すべてのリクエストの max_tokens</translation>
    </message>
    <message>
        <source>shared_prefix_len: tokens every prompt of a group starts with (like a system prompt) — what the prefix cache can reuse</source>
        <translation>shared_prefix_len：グループ内のすべてのプロンプトの先頭に付くトークン数（システムプロンプトのようなもの）— プレフィックスキャッシュが再利用できる部分</translation>
    </message>
    <message>
        <source>num_prefix_groups: how many different shared prefixes, round-robin</source>
        <translation>num_prefix_groups：異なる共有プレフィックスの数（ラウンドロビン）</translation>
    </message>
    <message>
        <source>seed: same seed → same prompts and arrival times</source>
        <translation>seed：同じシード → 同じプロンプトと到着時刻</translation>
    </message>
    <message>
        <source>ignore_eos: always generate output_len tokens, for comparable runs</source>
        <translation>ignore_eos：比較可能な実行のため、常に output_len トークンを生成する</translation>
    </message>
    <message>
        <source>Start load</source>
        <translation>負荷を開始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
</context>
</TS>
